"""lower_xla/jax_private.py: JAX's private API in one module, for the JAX versions tested.

Its import refuses a JAX or jaxlib outside ``SUPPORTED_JAX`` (faked here by setting
``jax.__version__`` and running a fresh copy of the module), saying what is supported,
what was found and what to do; ``SYMNB_ALLOW_UNTESTED_JAX=1`` makes it a warning. No
other module imports ``jax._src`` or jaxlib's modules (read from the sources).
"""

import importlib.util
import re
import tomllib
from pathlib import Path

import jax
import jaxlib
import pytest

import symnb
from symnb.lower_xla import jax_private
from symnb.lower_xla.jax_private import SUPPORTED_JAX, UnsupportedJaxError, check_jax_version
from tests.test_layers import imports_of, module_name

PACKAGE = Path(symnb.__file__).parent


def _import_fresh_copy() -> object:
    """Run jax_private.py's code anew (as its first import does), as another module."""
    spec = importlib.util.spec_from_file_location("_jax_private_copy", jax_private.__file__)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("faked", ["jax", "jaxlib"])
@pytest.mark.parametrize("version", ["0.9.2", "0.4.38", "0.12.0", "1.0.0"])
def test_untested_version_refused_at_import(monkeypatch, faked, version):
    monkeypatch.delenv("SYMNB_ALLOW_UNTESTED_JAX", raising=False)
    monkeypatch.setattr(jax if faked == "jax" else jaxlib, "__version__", version)
    with pytest.raises(ImportError) as raised:  # the copy's own UnsupportedJaxError
        _import_fresh_copy()
    assert type(raised.value).__name__ == "UnsupportedJaxError"
    message = str(raised.value)
    lowest, first_untested = SUPPORTED_JAX
    assert f"found jax {jax.__version__}, jaxlib {jaxlib.__version__}" in message
    assert f"{faked} {version}" in message
    assert f">= {lowest} and < {first_untested}" in message
    assert f'pip install "jax>={lowest},<{first_untested}"' in message
    assert "SYMNB_ALLOW_UNTESTED_JAX=1" in message


def test_untested_version_allowed_with_a_warning(monkeypatch):
    monkeypatch.setenv("SYMNB_ALLOW_UNTESTED_JAX", "1")
    monkeypatch.setattr(jax, "__version__", "0.13.0")
    with pytest.warns(RuntimeWarning, match="found jax 0.13.0"):
        module = _import_fresh_copy()
    assert module.Traceback is jax_private.Traceback


@pytest.mark.parametrize("version", ["0.10.0", "0.10.2", "0.11.2", "0.11.0.dev20260801",
                                     "0.10.1rc1", "0.11"])
def test_tested_versions_pass(version):
    check_jax_version(version, version)


@pytest.mark.parametrize("version", ["0.9.2", "0.9", "0.12.0", "0.12.0.dev20260801"])
def test_versions_outside_refused(monkeypatch, version):
    monkeypatch.delenv("SYMNB_ALLOW_UNTESTED_JAX", raising=False)
    with pytest.raises(UnsupportedJaxError, match=re.escape(f"jaxlib {version}")):
        check_jax_version("0.10.2", version)


def test_installed_jax_is_tested():
    check_jax_version()  # the suite runs on a supported JAX


def test_pyproject_states_the_same_bounds():
    path = PACKAGE.parent.parent / "pyproject.toml"
    if not path.exists():
        pytest.skip("symnb is installed, not run from its checkout: no pyproject.toml")
    pyproject = tomllib.loads(path.read_text())
    lowest, first_untested = SUPPORTED_JAX
    dependencies = pyproject["project"]["dependencies"]
    for name in ("jax", "jaxlib"):
        assert f"{name}>={lowest},<{first_untested}" in dependencies


def test_only_the_adapter_imports_private_jax():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path, PACKAGE)
        if name == "symnb.lower_xla.jax_private":
            continue
        for imported in imports_of(path, name, set()):
            if imported.startswith(("jax._src", "jaxlib.")):
                found.append(f"{path.relative_to(PACKAGE)} imports {imported}")
    assert found == []


def test_checkify_failed_tells_in_the_program_what_get_exception_tells_on_the_host():
    from jax.experimental import checkify

    assert jax_private.checkify_predicates_readable()  # on every tested JAX

    def positive(x):
        checkify.check(x > 0, "not positive: {x}", x=x)
        checkify.check(x < 10, "too large")
        return x * 2

    @jax.jit
    def flagged(x):
        error, doubled = checkify.checkify(positive)(x)
        return jax_private.checkify_failed(error), error, doubled

    for x in (1.0, -1.0, 12.0):
        failed, error, doubled = flagged(x)
        assert bool(failed) == (error.get_exception() is not None) == (not 0 < x < 10)
        assert float(doubled) == 2 * x
