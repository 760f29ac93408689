"""Lasagne master's own test suite passes on symnb, its cuDNN and GpuCorrMM layers' tests
included, on any device.

Slow (Lasagne's 1,361 tests in one process): runs with ``--run-slow``, as CI does.
Lasagne's GitHub master is kept in the repository (``lasagne_master.tar.xz``, MIT: the
package index serves Lasagne 0.1 only), renamed ``theano`` -> ``symnb`` and run unchanged
but for the NumPy-2 fixes of ``NUMPY2_FIXES_MASTER``. ``lasagne.layers.dnn`` and
``lasagne.layers.corrmm`` import (symnb's ``gpuarray`` probes say its cuDNN and GpuCorrMM
functions are there: docs/porting.md), so every test of ``Conv2DDNNLayer``,
``Conv3DDNNLayer``, the DNN pooling layers, ``SpatialPyramidPoolingDNNLayer``,
``BatchNormDNNLayer`` and ``Conv2DMMLayer`` runs and passes.

What skips: pylearn2's cuda-convnet layers (``cuda_convnet`` raises ``ImportError`` under
Theano's new GPU backend, as there), the two tests Lasagne marks slow, and Lasagne's bare
``pytest.skip()`` calls (its ``with_nones`` tests for ``untie_biases``, and its three tests
that a CPU-only Theano refuses the GPU modules, which skip when a GPU backend is there).
What fails: two tests, each at a documented difference, with its message (docs/porting.md,
"Lasagne's newest code"), never a wrong number.
"""

import pytest

from tests.theano_compat.lasagne_suite import (
    MOCK, NUMPY2_FIXES_MASTER, apply_fixes, port, run_suite, unpack_master,
)
from tests.theano_compat.ported_suite import pip_download

pytestmark = pytest.mark.slow(minutes=5)

CUDA_CONVNET = ("lasagne.layers.cuda_convnet not available", "cuda_convnet not available")
LASAGNE_SLOW = "need --runslow option to run"
#: The failure: {test id: what its message says} (docs/porting.md says why).
#: (test_updates::test_get_or_compute_grads passes since integer shared variables get
#: Theano's float zeros as gradient.)
EXPECTED_FAILURES = {
    "lasagne.tests.test_objectives::test_multiclass_hinge_loss_invalid":
        "index 1 is out of bounds for axis 0 of predictions.shape",
}


def test_lasagne_master_suite_runs_its_dnn_and_corrmm_layers(tmp_path):
    mock_wheel = pip_download(MOCK, tmp_path / "download", "--only-binary", ":all:")
    ported = port(unpack_master(tmp_path / "source"), tmp_path / "ported")
    apply_fixes(ported, NUMPY2_FIXES_MASTER)
    result = run_suite(ported, mock_wheel, timeout=3000)
    failures = dict(result["failures"])
    assert set(failures) == set(EXPECTED_FAILURES), result["output"][-6000:]
    for name, text in EXPECTED_FAILURES.items():
        assert text in failures[name], failures[name]
    assert result["counts"] == {"passed": 1267, "failed": 1, "skipped": 93}, result["counts"]
    skips = result["skips"]
    assert set(skips) <= set(CUDA_CONVNET) | {LASAGNE_SLOW, "Skipped"}, skips
    assert skips.get("Skipped") == 11 and skips.get(LASAGNE_SLOW) == 2, skips
