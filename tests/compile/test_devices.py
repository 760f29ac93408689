"""config.device: where shared variables live and programs run."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T


def _has_gpu() -> bool:
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


needs_gpu = pytest.mark.skipif(not _has_gpu(), reason="no GPU visible to JAX (install .[cuda] on a "
                                                      "machine with an NVIDIA GPU)")


def test_cpu_places_shared_variables_on_the_cpu():
    with sn.config.change_flags(device="cpu"):
        W = sn.shared(np.arange(3, dtype="float32"), name="W")
        f = sn.function([], [], updates=[(W, W + 1)])
        f()
        assert {d.platform for d in W._backend_value().devices()} == {"cpu"}
    np.testing.assert_array_equal(W.get_value(), np.arange(3) + 1)


@pytest.mark.skipif(_has_gpu(), reason="checks the error given where there is no GPU")
@pytest.mark.parametrize("spelling", ["gpu", "cuda", "cuda0", "gpu0"])
def test_a_gpu_asked_for_without_one_is_a_clear_error(spelling):
    x = T.vector("x")
    with sn.config.change_flags(device=spelling):
        with pytest.raises(RuntimeError, match=f"config.device='{spelling}' but JAX finds no GPU"):
            sn.function([x], x * 2)  # refused when compiled, before any call


@needs_gpu
@pytest.mark.parametrize("spelling", ["gpu", "cuda", "cuda0", "gpu0"])
def test_gpu_spellings_place_shared_variables_on_the_first_gpu(spelling):
    with sn.config.change_flags(device=spelling):
        W = sn.shared(np.arange(4, dtype="float32"), name="W")
        x = T.vector("x")
        f = sn.function([x], x * W, updates=[(W, W * 2)])
        np.testing.assert_array_equal(f(np.ones(4, "float32")), np.arange(4))
        assert W._backend_value().devices() == {jax.devices("gpu")[0]}
    np.testing.assert_array_equal(W.get_value(), np.arange(4) * 2)


@needs_gpu
def test_mlp_step_on_the_gpu_matches_numpy():
    from tests.compile import mlp_model

    with sn.config.change_flags(device="gpu"):
        step, params = mlp_model.training_step()
        X, Y = mlp_model.data()
        for _ in range(mlp_model.STEPS):
            step(X, Y)
    reference = mlp_model.reference_training()
    for p in params:
        np.testing.assert_allclose(p.get_value(), reference[p.name], rtol=1e-4, atol=1e-5)
