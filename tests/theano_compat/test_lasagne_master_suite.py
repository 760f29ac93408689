"""Lasagne master's tests of its cuDNN and GpuCorrMM layers pass on symnb, on any device.

Slow (Lasagne's ~830 convolution, pooling and normalization tests in one process): runs
with ``--run-slow``, as CI does. Lasagne's GitHub master is kept in the repository
(``lasagne_master.tar.xz``, MIT: the package index serves Lasagne 0.1 only), renamed
``theano`` -> ``symnb`` and run unchanged but for the NumPy-2 fixes of its test
references. ``lasagne.layers.dnn`` and ``lasagne.layers.corrmm`` import (symnb's
``gpuarray`` probes say its cuDNN and GpuCorrMM functions are there: docs/porting.md),
so every test of ``Conv2DDNNLayer``, ``Conv3DDNNLayer``, the DNN pooling layers,
``SpatialPyramidPoolingDNNLayer``, ``BatchNormDNNLayer`` and ``Conv2DMMLayer`` runs and
passes. What skips: pylearn2's cuda-convnet layers (``cuda_convnet`` raises
``ImportError`` under Theano's new GPU backend, as there), and Lasagne's bare
``pytest.skip()`` calls (its ``with_nones`` tests for ``untie_biases``, and its three
tests that a CPU-only Theano refuses the GPU modules, which skip when a GPU backend is
there).
"""

import pytest

from tests.theano_compat.lasagne_suite import (
    MOCK, NUMPY2_FIXES_MASTER, apply_fixes, port, run_suite, unpack_master,
)
from tests.theano_compat.ported_suite import pip_download

pytestmark = pytest.mark.slow

LAYER_TESTS = ("lasagne/tests/layers/test_conv.py", "lasagne/tests/layers/test_pool.py",
               "lasagne/tests/layers/test_normalization.py")
CUDA_CONVNET = ("lasagne.layers.cuda_convnet not available", "cuda_convnet not available")


def test_lasagne_master_dnn_and_corrmm_layers_pass(tmp_path):
    mock_wheel = pip_download(MOCK, tmp_path / "download", "--only-binary", ":all:")
    ported = port(unpack_master(tmp_path / "source"), tmp_path / "ported")
    apply_fixes(ported, NUMPY2_FIXES_MASTER)
    result = run_suite(ported, mock_wheel, timeout=3000, tests=LAYER_TESTS)
    assert result["failures"] == [], result["output"][-6000:]
    assert result["counts"] == {"passed": 743, "skipped": 83}, result["counts"]
    assert set(result["skips"]) <= set(CUDA_CONVNET) | {"Skipped"}, result["skips"]
    assert result["skips"].get("Skipped") == 11, result["skips"]
