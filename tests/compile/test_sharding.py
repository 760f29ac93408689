"""Several devices: the checks of multidevice_checks.py (8 forced host devices, one
subprocess for all of them) and a two-process ``jax.distributed`` run on localhost."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symnb as sn
from tests.compile import mlp_model

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"


def _environment() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), env.get("PYTHONPATH", "")])
    env.pop("XLA_FLAGS", None)
    env["JAX_PLATFORMS"] = "cpu"
    env.pop("SYMNB_FLAGS", None)  # the checks run on 8 host CPU devices, whatever the suite's device
    return env


@pytest.fixture(scope="module")
def multidevice_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("multidevice") / "results.json"
    run = subprocess.run([sys.executable, str(HERE / "multidevice_checks.py"), str(out)],
                         env=_environment(), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads(out.read_text())


def _check_names() -> list[str]:
    text = (HERE / "multidevice_checks.py").read_text()
    return [line.split("(")[0][4:] for line in text.splitlines() if line.startswith("def check_")]


@pytest.mark.parametrize("check", _check_names())
def test_on_eight_devices(multidevice_results, check):
    assert check in multidevice_results, f"{check} did not run"
    result = multidevice_results[check]
    assert result == "ok", result


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def test_two_processes_train_to_the_one_process_parameters(tmp_path):
    """Two processes, 4 devices each, coordinated by jax.distributed on localhost, train
    the MLP data-parallel over the 8 devices to the parameters of one device."""
    out = tmp_path / "trained.npz"
    port = str(_free_port())
    workers = [subprocess.Popen([sys.executable, str(HERE / "distributed_worker.py"), str(i), port,
                                 str(out)], env=_environment(), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True) for i in range(2)]
    logs = []
    for worker in workers:
        try:
            logs.append(worker.communicate(timeout=240)[0])
        except subprocess.TimeoutExpired:
            for other in workers:
                other.kill()
            pytest.skip("the two jax.distributed processes did not finish in 240 s on this "
                        "machine (a firewall or sandbox may block localhost connections)")
    if any("UNAVAILABLE" in log or "DEADLINE_EXCEEDED" in log for log in logs):
        pytest.skip("jax.distributed could not connect the two processes on localhost here:\n"
                    + logs[0][-2000:])
    assert all(w.returncode == 0 for w in workers), "\n----\n".join(logs)

    one_step, one_params = mlp_model.training_step()
    X, Y = mlp_model.data()
    for _ in range(mlp_model.STEPS):
        one_step(X, Y)
    trained = [sn.shared(np.zeros_like(p.get_value()), name=p.name) for p in one_params]
    sn.load(out, trained)
    reference = mlp_model.reference_training()
    for one, loaded in zip(one_params, trained):
        np.testing.assert_allclose(loaded.get_value(), one.get_value(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(loaded.get_value(), reference[one.name], rtol=1e-4, atol=1e-5)
