"""The nose plug-in for ported suites (nose_compat.py) runs the nose idioms Theano 1.0's
tests use and pytest 8+ does not: test generators (each yielded check runs, the first
failure fails the test and names the check), the setup/teardown methods of plain test
classes, a test class made in another module (collected as this module's, nose's
transplant_class) and nose's rule for which classes are tests (not one named ``_...``). Run on a small suite of its own in one pytest process, as the harness runs
Theano's tests."""

import textwrap
from pathlib import Path

import pytest

from tests.theano_compat.ported_suite import run_pytest

SUITE = """
    import unittest

    CALLS = []
    TEARDOWNS = []


    def check_square(x, expected):
        CALLS.append(x)
        assert x * x == expected


    def test_generator_all_pass():
        for x in (1, 2, 3):
            yield check_square, x, x * x


    def test_generator_second_fails():
        yield check_square, 1, 1
        yield check_square, 2, 5
        yield check_square, 3, 9


    def test_checks_ran():
        # the first generator's 3 checks, then the second's 2 (it stops at its failure)
        assert CALLS == [1, 2, 3, 1, 2]


    class TestPlain:
        def setup(self):
            self.ready = True
            self.log = ["setup"]

        def teardown(self):
            TEARDOWNS.append(self.log)

        def test_setup_ran(self):
            self.log.append("test")
            assert self.ready

        def test_method_generator(self):
            for x in (4, 5):
                yield self.check, x

        def check(self, x):
            assert self.ready and x > 3


    def test_teardowns_ran():
        assert TEARDOWNS == [["setup", "test"], ["setup"]]


    class test_nose_named:  # nose's name pattern: a lowercase class
        def setUp(self):
            self.value = 7

        def test_value(self):
            assert self.value == 7


    class TestCase(unittest.TestCase):
        def setUp(self):
            self.value = 3

        def test_value(self):
            assert self.value == 3


    class _AbstractTester(unittest.TestCase):  # nose: a leading _ is no test class
        def test_needs_a_subclass(self):
            assert self.op is not None


    class ConcreteTester(_AbstractTester):  # its subclass is collected
        op = "an op"


    class _DeclaredTester(unittest.TestCase):  # __test__ decides before the name
        __test__ = True

        def test_declared(self):
            assert True


    # a tester made by a helper module's maker, as Theano's test_sigm makes its testers
    # with test_basic's makeTester: collected as a class of this module, as nose did
    from nose_made_classes import make_tester

    MadeTester = make_tester("MadeTester")
"""

MAKER = """
    import sys
    import unittest


    def make_tester(name):
        class Checker(unittest.TestCase):
            def setUp(self):
                # Theano's makeTester checks the class is reachable by its module's name
                self.found = getattr(sys.modules[self.__class__.__module__], self.__class__.__name__)

            def test_found_by_its_module(self):
                assert self.__class__.__module__ == "test_nose_style"
                assert self.found is self.__class__

        Checker.__name__ = Checker.__qualname__ = name
        return Checker
"""


@pytest.mark.slow  # a pytest process of its own (seconds): CI runs it (--run-slow)
def test_nose_generators_and_plain_class_setup_run(tmp_path):
    (tmp_path / "test_nose_style.py").write_text(textwrap.dedent(SUITE))
    (tmp_path / "nose_made_classes.py").write_text(textwrap.dedent(MAKER))
    result = run_pytest(tmp_path, ["."], [Path(__file__).resolve().parent],
                        options=["-p", "nose_compat", "-o", "python_classes=Test test"])
    assert [name.rsplit("::", 1)[1] for name, _ in result["failures"]] == \
        ["test_generator_second_fails"], result["output"][-3000:]
    assert "in the generated check #1: check_square(2, 5)" in result["output"], result["output"][-3000:]
    assert result["counts"] == {"passed": 10, "failed": 1}, result["output"][-3000:]
