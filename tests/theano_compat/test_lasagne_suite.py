"""Lasagne 0.1's own test suite, ported by renaming ``theano`` to ``symnb``, passes.

Slow (a download, then Lasagne's ~730 tests in one process): runs with ``--run-slow``,
as CI does. Every test that a CPU-only Theano passes, passes; the tests of Lasagne 0.1's
GPU-only layers (cuDNN, cuda-convnet, GpuCorrMM) skip as they skip on Theano with
``device=cpu``: Lasagne 0.1 imports them only when ``config.device`` starts with
``'gpu'`` (symnb's cuDNN and GpuCorrMM functions would run; Lasagne master, which reads
the ``gpuarray`` probes instead, runs them: ``test_lasagne_master_suite.py``).
"""

import pytest

from tests.theano_compat.lasagne_suite import download, port, run_suite

pytestmark = pytest.mark.slow(minutes=2)

# What a CPU-only Theano skips in Lasagne 0.1's suite: the GPU-only layers' tests, and the
# two tests Lasagne itself marks slow (they need its --runslow option).
GPU_ONLY = ("lasagne.layers.dnn not available", "lasagne.layers.cuda_convnet not available",
            "lasagne.layers.corrmm not available", "cuda_convnet not available",
            "cuDNN not available", "dnn not available", "corrmm not available")


def test_lasagne_0_1_suite_passes(tmp_path):
    source, mock_wheel = download(tmp_path / "download", "0.1")
    result = run_suite(port(source, tmp_path / "ported"), mock_wheel)
    assert result["failures"] == [], result["output"][-6000:]
    assert result["counts"] == {"passed": 485, "skipped": 247}, result["counts"]
    for reason, count in result["skips"].items():
        assert reason.endswith(GPU_ONLY) or reason.endswith("need --runslow option to run"), reason
    assert sum(n for r, n in result["skips"].items() if r.endswith("--runslow option to run")) == 2
