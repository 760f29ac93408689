"""PyMC3 3.9.3, ported by renaming only (``pymc3_suite.py``), imports on symnb with no shim,
and a Normal model's logp and gradient equal SciPy's; find_MAP, NUTS and predictive
sampling recover the data's mean and standard deviation; a model around PyMC3's ODE module
(an op with only ``perform``) has SciPy's logp and gradient.

Slow (a download, then NUTS and ADVI compiled and run: about 3 minutes): runs with ``--run-slow``, as CI does."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.theano_compat.ported_suite import SRC
from tests.theano_compat.pymc3_suite import prepare

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).with_name("pymc3_normal_model.py")


def test_a_normal_model_matches_scipy_and_recovers_the_data(tmp_path):
    ported = prepare(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), str(ported)]),
               SYMNB_FLAGS="floatX=float64", JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
    proc = subprocess.run([sys.executable, "-W", "ignore", str(SCRIPT)], cwd=ported, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["logp"] == pytest.approx(got["scipy_logp"], rel=1e-12)
    np.testing.assert_allclose(got["grad"], got["scipy_grad"], rtol=1e-6)
    mean, std, n = got["data_mean"], got["data_std"], got["n"]
    # Flat-ish priors: the MAP and the posterior sit at the data's mean and std.
    np.testing.assert_allclose(got["map"], [mean, std], rtol=0.02)
    np.testing.assert_allclose(got["nuts_mean"], [mean, std], rtol=0.03)
    # The posterior's spread of mu is the standard error std / sqrt(n).
    assert got["nuts_std"][0] == pytest.approx(std / np.sqrt(n), rel=0.25)
    assert got["post_shape"] == [200, n]
    assert got["post_mean"] == pytest.approx(mean, abs=0.1)
    assert got["post_std"] == pytest.approx(std, rel=0.05)
    assert got["prior_mu_std"] == pytest.approx(10.0, rel=0.15)  # the prior Normal(0, 10)
    np.testing.assert_allclose(got["advi_mean"], [mean, std], rtol=0.03)  # mean-field ADVI
    # PyMC3's ODE module: odeint's states (rtol 1.5e-8) and its sensitivities' gradient
    # against the exact solution y0 exp(-k t).
    assert got["ode_logp"] == pytest.approx(got["ode_scipy_logp"], rel=1e-6)
    assert got["ode_grad"] == pytest.approx(got["ode_scipy_grad"], rel=1e-4)
