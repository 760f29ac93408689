"""The stand-ins for names symnb lacks (lacking_names.py): a test module that imports
them imports; a test using a module lacking by design is skipped with the reason (always);
with the diagnosis (``SYMNB_PORT_FORCE_IMPORTS=1``) a test using any other lacking name
fails, naming it. What symnb has is unchanged. Run on a small suite in one pytest process,
as the Theano harness runs its files."""

import json
import textwrap
from pathlib import Path

import pytest

from tests.theano_compat.ported_suite import run_pytest

BY_DESIGN = {"symnb.sparse": "sparse tensors", "symnb.tensor.inplace": "in-place ops",
             "symnb.scan_module.scan_op.Scan.fn": "Theano's step function"}

SUITE = """
    import pytest
    import symnb
    import symnb.tensor as T
    from symnb import sparse
    from symnb.tensor import inplace
    {forced}

    def test_uses_a_module_lacking_by_design():
        sparse.csr_matrix()


    def test_reads_its_truth():
        if inplace.exp_inplace:
            pass


    def test_reads_an_attribute_of_symnb():
        symnb.sparse.enable_sparse.x()


    def test_asks_isinstance_of_it():
        assert not isinstance(1, inplace.exp_inplace)


    def _loop():
        out, _ = symnb.scan(lambda h: h * 2, outputs_info=T.dvector(), n_steps=2)
        return out.owner.op


    def test_reads_a_refused_attribute_lacking_by_design():
        _loop().fn


    def test_reads_a_refused_attribute():
        _loop().var_mappings  # refused by symnb, not lacking by design in this run: fails


    def test_what_symnb_has_is_unchanged():
        x = T.dvector("x", test_value=[1.0, 2.0])
        assert T.dot(x, x).test_value == 5.0
        assert not hasattr(T, "__no_such_dunder__")
        assert str(inplace.add_inplace) == "add_inplace"  # Theano's str: testers are named so
        assert not hasattr(T, "no_such_name_e") or {force}  # the diagnosis answers every name
        with pytest.raises(AttributeError, match="XLA chooses the BLAS calls"):
            T.blas  # refused with symnb's reason (not lacking by design here)
"""

FORCED = """
import symnb.no_such_module_b as B
from symnb import no_such_name_a
E_GRAD = T.no_such_name_d.E_grad  # an attribute of a stand-in, read at import


def test_uses_a_missing_name():
    no_such_name_a(1)


def test_uses_a_missing_module():
    B.f()
"""


def _run(tmp_path, force: bool):
    (tmp_path / "test_lacking.py").write_text(
        textwrap.dedent(SUITE).format(forced=FORCED if force else "", force=force))
    return run_pytest(tmp_path, ["."], [Path(__file__).resolve().parent],
                      env={"SYMNB_PORT_FORCE_IMPORTS": "1" if force else "0",
                           "SYMNB_PORT_MISSING_MODULES": json.dumps(BY_DESIGN)},
                      options=["-p", "lacking_names"])


@pytest.mark.slow  # pytest processes importing symnb (tens of seconds on 2 cores): CI runs it
def test_uses_of_modules_lacking_by_design_skip_and_forced_names_fail_naming_them(tmp_path):
    (tmp_path / "plain").mkdir()
    result = _run(tmp_path / "plain", force=False)
    assert result["skips"] == {"uses symnb.sparse: needs sparse tensors": 2,
                               "uses symnb.tensor.inplace: needs in-place ops": 2,
                               "uses symnb.scan_module.scan_op.Scan.fn: needs Theano's step function": 1,
                               }, result["output"][-3000:]
    assert dict(result["failures"]) == {
        "test_lacking::test_reads_a_refused_attribute":
            "symnb.core.absent.NotInSymnbError: symnb.scan_module.scan_op.Scan.var_mappings is a "
            "Theano attribute that symnb does not have: the index maps of Theano's input layout "
            "(a sequence per tap, mit-mot, mit-sot, sit-sot, shared and nit-sot inputs); symnb's "
            "loop has its own layout (op.split, op.outer_position) (see docs/porting.md)"}, \
        result["output"][-3000:]
    assert result["counts"] == {"passed": 1, "skipped": 5, "failed": 1}, result["output"][-3000:]

    failures = dict(result["failures"])
    (tmp_path / "forced").mkdir()
    result = _run(tmp_path / "forced", force=True)
    assert dict(result["failures"]) == {
        "test_lacking::test_reads_a_refused_attribute": failures["test_lacking::test_reads_a_refused_attribute"],
        "test_lacking::test_uses_a_missing_name": "AttributeError: symnb lacks symnb.no_such_name_a",
        "test_lacking::test_uses_a_missing_module": "AttributeError: symnb lacks symnb.no_such_module_b.f",
    }, result["output"][-3000:]
    assert result["counts"] == {"passed": 1, "skipped": 5, "failed": 3}, result["counts"]
