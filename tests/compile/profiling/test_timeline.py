"""One call in time (``f.profile.timeline()``): its XLA operations are those
``jax.profiler``'s own trace of the same call records."""

import glob

import jax
import numpy as np
import pytest
from jax.profiler import ProfileData

import symnb as sn
import symnb.tensor as T


def _function():
    rng = np.random.default_rng(0)
    x = T.matrix("x", shape=(None, 32))
    w = sn.shared(rng.normal(size=(32, 32)).astype("float32"), name="w")
    f = sn.function([x], [T.tanh(T.dot(x, w)).sum(), (x * 2).max()], profile=True, name="two")
    batch = rng.normal(size=(16, 32)).astype("float32")
    f(batch)
    f(batch)
    return f, batch


def _operations_in_jax_trace(f, batch, directory):
    """The HLO operations a plain ``jax.profiler.trace`` of one call records."""
    with jax.profiler.trace(str(directory)):
        f(batch)
    data = ProfileData.from_file(glob.glob(f"{directory}/**/*.xplane.pb", recursive=True)[0])
    return {dict(e.stats)["hlo_op"] for plane in data.planes for line in plane.lines
            for e in line.events if "hlo_op" in dict(e.stats)}


def test_the_timeline_has_the_calls_operations_and_its_host_work(tmp_path):
    f, batch = _function()
    calls = f.profile.calls
    timeline = f.profile.timeline()
    assert not timeline.reason
    assert f.profile.calls == calls  # the traced call is not one of the profile's calls
    expected = _operations_in_jax_trace(f, batch, tmp_path)
    assert expected and {e.name for e in timeline.operations()} == expected
    assert any(e.kind == "host" for e in timeline.events)
    assert all(0 <= e.start and e.start + e.seconds <= timeline.call_seconds * (1 + 1e-9)
               for e in timeline.events)
    page = timeline._repr_html_()
    assert page.count('data-kind="xla"') == len(timeline.operations())
    assert "<script" not in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")


def test_a_timeline_that_cannot_be_traced_says_why():
    f, batch = _function()
    jax.profiler.start_trace("/tmp/symnb-test-busy-profiler")
    try:
        timeline = f.profile.timeline(batch)
    finally:
        jax.profiler.stop_trace()
    assert timeline.reason.startswith("jax.profiler could not trace the call")
    assert timeline.events == [] and "not traced" in timeline._repr_html_()
    with pytest.raises(ValueError, match="call the function once first"):
        v = T.vector("v")
        sn.function([v], v * 2, profile=True).profile.timeline()
