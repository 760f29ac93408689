"""A Normal model in PyMC3 3.9.3 (ported: ``import pymc3`` runs on symnb), run by
``test_pymc3_model.py`` in a process of its own with the ported copy on the path. Prints
one JSON object: the model's logp and gradient at a point, the same from SciPy (the
gradient by central differences of SciPy's logp), the MAP estimate, NUTS draws' and ADVI's mean and
standard deviation, and posterior/prior predictive summaries, with the data's."""

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
print(json.dumps({
    "logp": float(model.logp(point)), "scipy_logp": float(scipy_logp(1.2, np.log(1.8))),
    "grad": [grad["mu"], grad["sigma_log__"]], "scipy_grad": ref_grad,
    "map": [float(start["mu"]), float(start["sigma"])],
    "nuts_mean": [float(trace["mu"].mean()), float(trace["sigma"].mean())],
    "nuts_std": [float(trace["mu"].std()), float(trace["sigma"].std())],
    "post_shape": list(post["y"].shape), "post_mean": float(post["y"].mean()),
    "post_std": float(post["y"].std()), "prior_mu_std": float(prior["mu"].std()),
    "advi_mean": [float(advi["mu"].mean()), float(advi["sigma"].mean())],
    "data_mean": float(data.mean()), "data_std": float(data.std()), "n": len(data)}))
