"""``symnb.sandbox.cuda.blas``: the old backend's correlation ops, those of
:mod:`symnb.gpuarray.blas`."""

from symnb.gpuarray.blas import (
    GpuCorr3dMM, GpuCorr3dMM_gradInputs, GpuCorr3dMM_gradWeights, GpuCorrMM, GpuCorrMM_gradInputs,
    GpuCorrMM_gradWeights,
)

__all__ = ["GpuCorrMM", "GpuCorrMM_gradWeights", "GpuCorrMM_gradInputs",
           "GpuCorr3dMM", "GpuCorr3dMM_gradWeights", "GpuCorr3dMM_gradInputs"]
