"""A Normal model in PyMC3 3.9.3 (ported: ``import pymc3`` runs on symnb), run by
``test_pymc3_model.py`` in a process of its own with the ported copy on the path. Prints
one JSON object: the model's logp and gradient at a point, the same from SciPy (the
gradient by central differences of SciPy's logp), the MAP estimate, NUTS draws' and ADVI's mean and
standard deviation, and posterior/prior predictive summaries, with the data's; and the
logp and gradient of a model around PyMC3's ODE module (``pymc3.ode.DifferentialEquation``:
an op with only ``perform``, which builds its node through ``super(theano.Op, self).__call__``
and differentiates through its sensitivities) against SciPy on the exact solution."""

import json

import numpy as np
import pymc3 as pm
import scipy.stats as st

rng = np.random.default_rng(0)
data = rng.normal(1.5, 2.0, size=200)
with pm.Model() as model:
    mu = pm.Normal("mu", 0.0, 10.0)
    sigma = pm.HalfNormal("sigma", 5.0)
    pm.Normal("y", mu, sigma, observed=data)


def scipy_logp(m: float, log_s: float) -> float:
    """The model's log density in its free space (sigma log-transformed: + log|ds/dlog s|)."""
    s = np.exp(log_s)
    return (st.norm(0, 10).logpdf(m) + st.halfnorm(scale=5).logpdf(s) + log_s
            + st.norm(m, s).logpdf(data).sum())


point = {"mu": 1.2, "sigma_log__": np.log(1.8)}
eps = 1e-6
ref_grad = [(scipy_logp(1.2 + eps, np.log(1.8)) - scipy_logp(1.2 - eps, np.log(1.8))) / (2 * eps),
            (scipy_logp(1.2, np.log(1.8) + eps) - scipy_logp(1.2, np.log(1.8) - eps)) / (2 * eps)]
order = [v.name for v in model.free_RVs]  # dlogp's order of the free variables
grad = dict(zip(order, model.dlogp()(point).tolist()))
with model:
    start = pm.find_MAP(progressbar=False)
    trace = pm.sample(500, tune=500, chains=1, cores=1, progressbar=False, random_seed=1,
                      compute_convergence_checks=False)
    post = pm.sample_posterior_predictive(trace, samples=200, random_seed=2, progressbar=False)
    prior = pm.sample_prior_predictive(300, random_seed=3)
    approx = pm.fit(20000, method="advi", random_seed=4, progressbar=False)
    advi = approx.sample(1000)


def decay(y, t, p):
    """dy/dt = -k y: y(t) = y0 exp(-k t)."""
    return [-p[0] * y[0]]


times = np.linspace(0.5, 3.0, 6)
observed = 2.0 * np.exp(-0.8 * times) + np.array([0.01, -0.02, 0.0, 0.015, -0.01, 0.005])
ode = pm.ode.DifferentialEquation(func=decay, times=times, n_states=1, n_theta=1, t0=0)
with pm.Model() as ode_model:
    k = pm.HalfNormal("k", 1.0)
    pm.Normal("y", mu=ode(y0=[2.0], theta=[k])[:, 0], sigma=0.1, observed=observed)


def scipy_ode_logp(log_k: float) -> float:
    k_ = np.exp(log_k)
    return (st.halfnorm(scale=1.0).logpdf(k_) + log_k
            + st.norm(2.0 * np.exp(-k_ * times), 0.1).logpdf(observed).sum())


ode_point = {"k_log__": np.log(0.7)}
print(json.dumps({
    "ode_logp": float(ode_model.logp(ode_point)), "ode_scipy_logp": scipy_ode_logp(np.log(0.7)),
    "ode_grad": float(ode_model.dlogp()(ode_point)[0]),
    "ode_scipy_grad": (scipy_ode_logp(np.log(0.7) + eps) - scipy_ode_logp(np.log(0.7) - eps)) / (2 * eps),
    "logp": float(model.logp(point)), "scipy_logp": float(scipy_logp(1.2, np.log(1.8))),
    "grad": [grad["mu"], grad["sigma_log__"]], "scipy_grad": ref_grad,
    "map": [float(start["mu"]), float(start["sigma"])],
    "nuts_mean": [float(trace["mu"].mean()), float(trace["sigma"].mean())],
    "nuts_std": [float(trace["mu"].std()), float(trace["sigma"].std())],
    "post_shape": list(post["y"].shape), "post_mean": float(post["y"].mean()),
    "post_std": float(post["y"].std()), "prior_mu_std": float(prior["mu"].std()),
    "advi_mean": [float(advi["mu"].mean()), float(advi["sigma"].mean())],
    "data_mean": float(data.mean()), "data_std": float(data.std()), "n": len(data)}))
