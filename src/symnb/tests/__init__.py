"""``symnb.tests``: Theano's ``theano.tests`` package, for its ``unittest_tools`` that the
test suites of libraries built on Theano import (PyMC3's ``utt.verify_grad``)."""
