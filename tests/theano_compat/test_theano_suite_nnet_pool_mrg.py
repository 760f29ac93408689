"""Theano 1.0.5's own tests of its nnet, conv, batch norm, pool and MRG modules, renamed:
a part of ``test_theano_suite.py`` (which says how the suite runs, and holds the expected
counts), in a module of its own so that it runs beside the other parts."""

import pytest

from tests.theano_compat.test_theano_suite import run_part

pytestmark = pytest.mark.slow(minutes=17)


def test_theano_1_0_5_nnet_pool_mrg_tests_do_no_worse(tmp_path):
    run_part("nnet_pool_mrg", tmp_path)
