"""Theano 1.0.5's own tests of its sparse, scan, ifelse, gradient, Rop, printing and
compile modules, renamed: a part of ``test_theano_suite.py`` (which says how the suite
runs, and holds the expected counts), in a module of its own so that it runs beside the
other parts."""

import pytest

from tests.theano_compat.test_theano_suite import run_part

pytestmark = pytest.mark.slow(minutes=12)


def test_theano_1_0_5_sparse_scan_compile_tests_do_no_worse(tmp_path):
    run_part("sparse_scan_compile", tmp_path)
