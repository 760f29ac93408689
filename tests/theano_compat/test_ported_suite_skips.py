"""The ported suites' skip plug-in (ported_suite_skips.py) skips a test that needs a missing
module, with the reason, and nothing else: run on a small suite of its own in one pytest
process, as the Keras harness runs Keras's tests."""

import pytest
import json
import textwrap
from pathlib import Path

from tests.theano_compat.ported_suite import run_pytest

MISSING = {"symnb_absent_backend": "the absent backend, not installed",
           "symnb_absent_sparse": "absent sparse tensors"}

SUITE = {
    # A module of the suite that imports a missing module optionally, as Keras's backend does
    # with theano.sparse.
    "helper_mod.py": """
        try:
            import symnb_absent_sparse as sparse_module
        except ImportError:
            sparse_module = None
    """,
    "test_optional.py": """
        import helper_mod

        try:
            import symnb_absent_backend as ABSENT
        except ImportError:
            ABSENT = None
        try:
            import json as PRESENT
        except ImportError:
            PRESENT = None
        try:
            import symnb_absent_elsewhere as OTHER  # missing, but not declared missing
        except ImportError:
            OTHER = None


        def compare(backends):
            # A helper that takes the backends as an argument and compares with ABSENT.
            return [b.dumps(1) for b in backends if b is not ABSENT]


        def test_uses_absent():
            assert [k.dumps(1) for k in [PRESENT, ABSENT]] == ["1", "1"]


        def test_tolerant_helper():
            assert compare([PRESENT]) == ["1"]


        def test_attribute_of_a_module():
            assert helper_mod.sparse_module.x


        def test_undeclared_missing_module_fails():
            assert OTHER.dumps(1) == "1"


        class TestClass:
            @staticmethod
            def _helper():
                return ABSENT.dumps(2)

            def test_through_class_helper(self):
                assert self._helper() == "2"

            def test_plain(self):
                assert PRESENT.dumps(3) == "3"


        def test_import_error_raised_from_missing_module():
            try:
                import symnb_absent_backend  # noqa: F401
            except ImportError:
                raise ImportError("You need the absent backend installed")


        def test_other_import_error_fails():
            raise ImportError("cannot import name 'x'")


        def test_other_error_after_missing_module_fails():
            try:
                import symnb_absent_backend  # noqa: F401
            except ImportError:
                raise ValueError("not an ImportError")
    """,
    "test_needs_absent.py": """
        import symnb_absent_backend


        def test_never_collected():
            assert symnb_absent_backend
    """,
}


@pytest.mark.slow  # tens of seconds on 2 cores: CI runs it (--run-slow), the default suite stays under 5 min
def test_tests_needing_a_missing_module_skip_with_the_reason(tmp_path):
    for name, text in SUITE.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    result = run_pytest(tmp_path, ["."], [Path(__file__).resolve().parent],
                        env={"SYMNB_PORT_MISSING_MODULES": json.dumps(MISSING)},
                        options=["-p", "ported_suite_skips"])
    backend = "needs the absent backend, not installed"
    assert result["skips"] == {
        backend: 2,  # the module that imports it, and the test whose ImportError it caused
        f"uses ABSENT: {backend}": 2,  # directly, and through a method of its class
        "uses helper_mod.sparse_module: needs absent sparse tensors": 1,
    }, result["output"][-3000:]
    assert sorted(name.rsplit("::", 1)[1] for name, _ in result["failures"]) == [
        "test_other_error_after_missing_module_fails", "test_other_import_error_fails",
        "test_undeclared_missing_module_fails"], result["output"][-3000:]
    assert result["counts"] == {"passed": 2, "skipped": 5, "failed": 3}, result["counts"]
