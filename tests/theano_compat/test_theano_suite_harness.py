"""The pieces of the Theano-suite harness (theano_suite.py) that need no download: which
sdist members are extracted, how test imports are renamed, how outcomes are counted per
file and failures by cause, and what the static reading finds missing."""

import ast
import textwrap

from tests.theano_compat.theano_suite import (
    PUBLIC_API_FILES, _is_test_file, _missing_in, cause, causes, per_file, rename_test_imports,
)

ROOT = "Theano-1.0.5/theano/"


def test_only_files_in_a_tests_folder_of_the_package_are_extracted():
    assert _is_test_file(ROOT + "tests/unittest_tools.py", ROOT)
    assert _is_test_file(ROOT + "tensor/nnet/tests/test_nnet.py", ROOT)
    assert _is_test_file(ROOT + "gof/tests/c_code/test_cenum.h", ROOT)
    assert not _is_test_file(ROOT + "tensor/basic.py", ROOT)  # library code
    assert not _is_test_file(ROOT + "tests_helper.py", ROOT)  # a file named tests*, not a folder
    assert not _is_test_file("Theano-1.0.5/doc/tests/x.py", ROOT)  # outside the package


def test_test_modules_are_sent_to_the_ported_package_and_symnb_modules_stay():
    text = textwrap.dedent("""
        import symnb.tests.unittest_tools as utt
        from symnb.tests import unittest_tools
        from symnb.tensor.tests.test_basic import makeTester, rand
        import symnb.gpuarray.tests.config
        from symnb.tensor import nnet
        import symnb.testing_utils
        x = symnb_tests.tests.unittest_tools
    """)
    assert rename_test_imports(text) == textwrap.dedent("""
        import symnb_tests.tests.unittest_tools as utt
        from symnb_tests.tests import unittest_tools
        from symnb_tests.tensor.tests.test_basic import makeTester, rand
        import symnb_tests.gpuarray.tests.config
        from symnb.tensor import nnet
        import symnb.testing_utils
        x = symnb_tests.tests.unittest_tools
    """)


def test_import_symnb_binds_the_ported_tests_too():
    # Theano's tests write theano.tests.unittest_tools.fetch_seed(), a name `import theano` bound
    text = "import numpy\nimport symnb\nseed = symnb.tests.unittest_tools.fetch_seed()\n"
    assert rename_test_imports(text) == ("import numpy\nimport symnb\nimport symnb_tests\n"
                                         "seed = symnb_tests.tests.unittest_tools.fetch_seed()\n")
    once = rename_test_imports(text)
    assert rename_test_imports(once) == once


def _result():
    return {"outcomes": [("symnb_tests.tests.test_rop", "error"),
                         ("symnb_tests.tests.test_printing::test_debugprint", "failed"),
                         ("symnb_tests.tests.test_printing::test_min_informative_str", "passed"),
                         ("symnb_tests.tensor.tests.test_basic.T_max_and_argmax::test0", "passed"),
                         ("symnb_tests.tensor.tests.test_basic::test_default", "skipped")],
            "failures": [("symnb_tests.tests.test_rop",
                          "AttributeError: module 'symnb.tensor' has no attribute 'verify_grad'"),
                         ("symnb_tests.tests.test_printing::test_debugprint",
                          "assert 'a' == 'b'\n  - b\n  + a"),
                         ("symnb_tests.tests.test_printing::test_scan_debugprint1",
                          "AssertionError: differs")]}


def test_outcomes_are_counted_per_file_a_collection_error_included():
    counts = per_file(_result())
    assert set(counts) == set(PUBLIC_API_FILES)
    assert counts["tests/test_rop.py"] == {"error": 1}
    assert counts["tests/test_printing.py"] == {"failed": 1, "passed": 1}
    assert counts["tensor/tests/test_basic.py"] == {"passed": 1, "skipped": 1}
    assert counts["tensor/tests/test_elemwise.py"] == {}


def test_failures_are_counted_by_the_first_line_of_what_they_stopped_at():
    assert cause("ImportError: cannot import name 'x' from 'symnb'\nmore") == \
        "ImportError: cannot import name 'x' from 'symnb'"
    assert causes(_result()) == {
        "AttributeError: module 'symnb.tensor' has no attribute 'verify_grad'": 1,
        "AssertionError (a value the test compares differs)": 2}


def test_the_static_reading_finds_missing_modules_names_and_alias_attributes():
    tree = ast.parse(textwrap.dedent("""
        import symnb
        import symnb.tensor as T
        from symnb import tensor, no_such_name_1
        from symnb.no_such_module_2 import anything
        import symnb.no_such_module_3
        def test():
            T.dot, T.no_such_name_4, tensor.no_such_name_5, symnb.function, symnb.no_such_name_6
    """))
    assert _missing_in(tree) == sorted([
        "symnb.no_such_name_1", "symnb.no_such_module_2", "symnb.no_such_module_3",
        "symnb.tensor.no_such_name_4", "symnb.tensor.no_such_name_5", "symnb.no_such_name_6"])


def test_the_suite_parts_run_every_public_api_file_once():
    from tests.theano_compat.test_theano_suite import EXPECTED, PARTS

    files = [f for part in PARTS.values() for f in part]
    assert sorted(files) == sorted(PUBLIC_API_FILES) == sorted(EXPECTED)
    assert len(set(files)) == len(files)
