"""The profile of a function holding an op written in Python (compile/profiling/render.py):
its perform's time, called back from the program, is host time on its line and row."""

import time

import numpy as np

import symnb as sn
import symnb.tensor as T
from symnb.compile.profiling.render import HOST_NOTE, host_seconds
from symnb.core.graph.basic import Apply
from symnb.core.graph.op import Op

PAUSE = 0.02  # seconds perform sleeps: far above what the XLA ops take here


class SlowSort(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        time.sleep(PAUSE)
        output_storage[0][0] = np.sort(inputs[0])

    def infer_shape(self, node, shapes):
        return shapes


def test_a_python_ops_time_is_host_time_on_its_line():
    x = T.dvector("x", test_value=np.ones(3))
    y = SlowSort()(x)
    z = T.exp(y).sum()
    f = sn.function([x], z, profile=True)
    value = np.random.default_rng(0).random(500)
    for _ in range(3):
        np.testing.assert_allclose(f(value), np.exp(np.sort(value)).sum(), rtol=1e-12)
    report = f.profile.report()
    host = host_seconds(f.profile, report)
    assert PAUSE / 2 < host < 100 * PAUSE  # orders of magnitude: the sleep, not the XLA ops
    lines = dict((line, seconds) for line, seconds, _ in f.profile.line_times())
    python_line = next(line for line in lines if "y = SlowSort()(x)" in line)
    assert python_line.endswith(HOST_NOTE) and lines[python_line] >= host
    exp_line = next(line for line in lines if "z = T.exp(y).sum()" in line)
    assert not exp_line.endswith(HOST_NOTE)
    summary = f.profile.summary(file="str")
    assert f"SlowSort{HOST_NOTE}" in summary and "Python ops on the host)" in summary
    assert "Python ops on the host)" in f.profile.overview(file="str")
