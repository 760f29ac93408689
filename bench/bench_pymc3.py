"""PyMC3 3.9.3 on symnb (issue 41): a hierarchical model's gradient against hand-written JAX,
and NUTS draws per second.

    python bench/bench_pymc3.py [--quick] [WORK_DIR]

PyMC3 3.9.3 is ported by renaming only (``tests/theano_compat/pymc3_suite.py``: downloaded
into ``WORK_DIR``, default ``$BENCH_PYMC3_DIR`` or a temporary folder, reused when it is
already there) and imported in this process with ``floatX=float64``. Two hierarchical
normal models, float64:

- ``eight_schools``: the centred eight-schools model (10 free values; call overhead
  dominates);
- ``radon``: a radon-style model with intercepts and slopes varying by county (85
  counties, 919 synthetic observations, 175 free values).

For each, one gradient evaluation is PyMC3's ``model.logp_dlogp_function()`` called on the
flat point (what NUTS calls: the Python wrapper, then symnb's compiled function of the logp
and its ``grad``) against the same log density written in JAX by hand (the same flat
vector, the same log-transform Jacobians) under ``jax.jit(jax.value_and_grad(...))``, its
results copied to the host. Both are checked to give the same logp and gradient at a random
point (rtol 1e-10) before timing. Target: at most 1.10x. Also timed: symnb's compiled
function alone (without PyMC3's wrapper), to show what the wrapper costs, and against the
same densities written in JAX in PyMC3's own formulas (``AsPyMC3``: ``tau = sigma**-2``,
``bound``'s checks), to show what PyMC3's graph costs apart from symnb.

Then NUTS with PyMC3 (``pm.sample``, one chain, after a first call that compiles):
draws per second and gradient evaluations per second inside the sampler (information).
Alternating rounds, best of each (``timing.compare``); ``BENCH_CLOCK=cpu`` times by CPU time.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

# PyMC3's tests and models were written for Theano's default floatX, float64; set before
# symnb is imported (README, "float64").
os.environ.setdefault("SYMNB_FLAGS", "floatX=float64")

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT))
from timing import QUICK, clock, compare  # noqa: E402

TARGET = 1.10
LOG_2PI = float(np.log(2 * np.pi))


def import_pymc3(work: Path):
    """The ported PyMC3 (downloaded and ported under ``work`` unless already there)."""
    from tests.theano_compat.pymc3_suite import prepare

    ported = prepare(work)
    sys.path.insert(0, str(ported))
    import pymc3

    return pymc3


# --- the log densities written by hand in JAX ------------------------------------------------

class Plain:
    """The log densities as one writes them in JAX."""

    @staticmethod
    def normal(x, mu, sigma):
        return -0.5 * ((x - mu) / sigma) ** 2 - jnp.log(sigma) - 0.5 * LOG_2PI

    @staticmethod
    def half_normal(x, sigma):
        return -0.5 * (x / sigma) ** 2 - jnp.log(sigma) + 0.5 * jnp.log(2 / np.pi)

    @staticmethod
    def half_cauchy(x, beta):
        return jnp.log(2 / np.pi) - jnp.log(beta) - jnp.log1p((x / beta) ** 2)


class AsPyMC3:
    """The same densities in PyMC3 3.9.3's formulas (``distributions/continuous.py``: the
    precision ``tau = sigma**-2``, ``log(tau / pi / 2)``, and ``bound``'s checks as
    ``where``): separates what PyMC3's graph costs from what symnb's lowering costs."""

    @staticmethod
    def normal(x, mu, sigma):
        tau = sigma ** -2.0
        return jnp.where(sigma > 0, (-tau * (x - mu) ** 2 + jnp.log(tau / np.pi / 2.0)) / 2.0,
                         -jnp.inf)

    @staticmethod
    def half_normal(x, sigma):
        tau = sigma ** -2.0
        return jnp.where((x >= 0) & (tau > 0), -0.5 * tau * x ** 2 + 0.5 * jnp.log(tau * 2 / np.pi),
                         -jnp.inf)

    @staticmethod
    def half_cauchy(x, beta):
        return jnp.where((x >= 0) & (beta > 0), jnp.log(2.0) - jnp.log(np.pi) - jnp.log(beta)
                         - jnp.log1p((x / beta) ** 2), -jnp.inf)


def eight_schools(pm, d=Plain):
    """The centred eight-schools model; its hand-written JAX logp of the named free values
    (densities from ``d``)."""
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        theta = pm.Normal("theta", mu, tau, shape=8)
        pm.Normal("obs", theta, sigma, observed=y)

    def logp(v):
        tau_ = jnp.exp(v["tau_log__"])  # the log transform's Jacobian: + tau_log__
        return (d.normal(v["mu"], 0.0, 5.0) + d.half_cauchy(tau_, 5.0) + v["tau_log__"]
                + d.normal(v["theta"], v["mu"], tau_).sum()
                + d.normal(y, v["theta"], sigma).sum())

    return model, logp


def radon(pm, d=Plain, counties: int = 85, n: int = 919):
    """Intercepts and slopes varying by county (Gelman and Hill's radon data's sizes,
    synthetic values); its hand-written JAX logp of the named free values (densities from
    ``d``)."""
    rng = np.random.default_rng(0)
    county = rng.integers(0, counties, size=n)
    floor = rng.integers(0, 2, size=n).astype(np.float64)
    a_true, b_true = rng.normal(1.5, 0.3, counties), rng.normal(-0.6, 0.2, counties)
    log_radon = a_true[county] + b_true[county] * floor + rng.normal(0, 0.7, n)
    with pm.Model() as model:
        mu_a = pm.Normal("mu_a", 0.0, sigma=10.0)
        sigma_a = pm.HalfNormal("sigma_a", 5.0)
        mu_b = pm.Normal("mu_b", 0.0, sigma=10.0)
        sigma_b = pm.HalfNormal("sigma_b", 5.0)
        a = pm.Normal("a", mu_a, sigma_a, shape=counties)
        b = pm.Normal("b", mu_b, sigma_b, shape=counties)
        eps = pm.HalfCauchy("eps", 5.0)
        pm.Normal("y", a[county] + b[county] * floor, eps, observed=log_radon)

    def logp(v):
        s_a, s_b, e = (jnp.exp(v[k]) for k in ("sigma_a_log__", "sigma_b_log__", "eps_log__"))
        jacobian = v["sigma_a_log__"] + v["sigma_b_log__"] + v["eps_log__"]
        return (d.normal(v["mu_a"], 0.0, 10.0) + d.normal(v["mu_b"], 0.0, 10.0)
                + d.half_normal(s_a, 5.0) + d.half_normal(s_b, 5.0)
                + d.half_cauchy(e, 5.0) + jacobian
                + d.normal(v["a"], v["mu_a"], s_a).sum()
                + d.normal(v["b"], v["mu_b"], s_b).sum()
                + d.normal(log_radon, v["a"][county] + v["b"][county] * floor, e).sum())

    return model, logp


MODELS = {"eight_schools": eight_schools, "radon": radon}


def jax_value_and_grad(func, logp):
    """``jax.jit(jax.value_and_grad)`` of ``logp`` on PyMC3's flat vector (``func``'s
    ordering: the same slices and shapes), its results copied to the host."""
    layout = [(v.var, v.slc, v.shp) for v in func._ordering.vmap]

    def flat_logp(x):
        return logp({name: x[slc].reshape(shp) for name, slc, shp in layout})

    jitted = jax.jit(jax.value_and_grad(flat_logp))

    def call(x):
        value, grad = jitted(x)
        return np.asarray(value), np.asarray(grad)

    return call


def bench_gradient(pm, name: str, number: int, rounds: int) -> list[dict]:
    model, logp = MODELS[name](pm)
    func = model.logp_dlogp_function()
    func.set_extra_values({})
    reference = jax_value_and_grad(func, logp)
    as_pymc3 = jax_value_and_grad(func, MODELS[name](pm, AsPyMC3)[1])
    x = np.random.default_rng(1).normal(0.0, 0.5, size=func.size)
    ours_value, ours_grad = func(x)
    for check in (reference, as_pymc3):
        ref_value, ref_grad = check(x)
        np.testing.assert_allclose(ours_value, ref_value, rtol=1e-10)
        np.testing.assert_allclose(ours_grad, ref_grad, rtol=1e-10,
                                   atol=1e-10 * np.abs(ref_grad).max())
    print(f"{name}: {func.size} free values, logp {float(ours_value):.6f} (same as JAX's)")
    compiled = func._symnb_function
    return [
        compare(f"{name}: logp_dlogp_function(x)", lambda: func(x), lambda: reference(x),
                number=number, target=TARGET, rounds=rounds),
        compare(f"{name}: its compiled function alone", lambda: compiled(x),
                lambda: reference(x), number=number, target=TARGET, rounds=rounds),
        compare(f"{name}: compiled alone, JAX in PyMC3's formulas", lambda: compiled(x),
                lambda: as_pymc3(x), number=number, target=TARGET, rounds=rounds,
                labels=("symnb", "jax.jit as PyMC3")),
    ]


def bench_nuts(pm, name: str, draws: int, tune: int) -> dict:
    model, _ = MODELS[name](pm)
    options = dict(chains=1, cores=1, progressbar=False, compute_convergence_checks=False,
                   return_inferencedata=False)
    with model:
        pm.sample(10, tune=10, random_seed=0, **options)  # compiles
        start = clock()
        trace = pm.sample(draws, tune=tune, random_seed=1, discard_tuned_samples=False, **options)
        seconds = clock() - start
    gradients = int(trace.get_sampler_stats("tree_size").sum())
    total = draws + tune
    print(f"{name}: NUTS {total} draws ({tune} tuning) in {seconds:.2f} s: "
          f"{total / seconds:8.1f} draws/s, {gradients / seconds:9.1f} gradient evaluations/s "
          f"({gradients / total:.1f} per draw)")
    return {"name": name, "draws_per_s": total / seconds, "grads_per_s": gradients / seconds}


def main() -> None:
    quick = "--quick" in sys.argv or QUICK
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    work = Path(args[0] if args else os.environ.get("BENCH_PYMC3_DIR") or tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    pm = import_pymc3(work)
    print(f"PyMC3 {pm.__version__} on symnb, jax {jax.__version__} on {jax.default_backend()}, "
          f"clock: {'CPU time' if os.environ.get('BENCH_CLOCK') == 'cpu' else 'wall'}")
    for name in MODELS:
        bench_gradient(pm, name, number=200 if quick else 1000, rounds=3 if quick else 8)
    for name in MODELS:
        bench_nuts(pm, name, draws=200 if quick else 1000, tune=200 if quick else 1000)


if __name__ == "__main__":
    main()
