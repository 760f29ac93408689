"""Variables take the attributes a library attaches, as Theano's did (Keras: ``_keras_shape``,
``_uses_learning_phase``, ``_keras_history``), and keep them through pickling."""

import pickle

import numpy as np

import symnb as sn
import symnb.tensor as T


def test_graph_variables_and_shared_variables_take_new_attributes():
    x = T.matrix("x", test_value=np.ones((2, 3), "float32"))
    w = sn.shared(np.arange(6, dtype="float32").reshape(3, 2), name="w")
    y = T.dot(x, w)
    for var, shape in ((x, (None, 3)), (w, (3, 2)), (y, (None, 2))):
        var._keras_shape = shape
        var._uses_learning_phase = False
        assert var._keras_shape == shape and var._uses_learning_phase is False
    # The graph still computes as before: the attributes are annotations only.
    np.testing.assert_allclose(sn.function([x], y)(np.ones((2, 3), "float32")),
                               np.ones((2, 3)) @ np.arange(6).reshape(3, 2))


def test_attributes_survive_pickling():
    x = T.vector("x", test_value=np.ones(3, "float32"))
    w = sn.shared(np.full(3, 2.0, "float32"), name="w")
    y = x * w
    x._keras_history = ("input_1", 0, 0)
    w._keras_shape = (3,)
    y._uses_learning_phase = True
    x2, w2, y2 = pickle.loads(pickle.dumps((x, w, y)))
    assert x2._keras_history == ("input_1", 0, 0)
    assert w2._keras_shape == (3,)
    assert y2._uses_learning_phase is True
    np.testing.assert_array_equal(w2.get_value(), np.full(3, 2.0, "float32"))
    np.testing.assert_array_equal(sn.function([x2], y2)(np.arange(3, dtype="float32")),
                                  np.arange(3) * 2.0)


def test_tensor_shared_variable_is_the_class_of_every_shared_tensor():
    w = sn.shared(np.zeros((2, 2), "float32"))
    s = sn.shared(np.float32(1.0))
    assert isinstance(w, T.sharedvar.TensorSharedVariable)
    assert isinstance(s, T.sharedvar.TensorSharedVariable)
    assert not isinstance(T.vector("v"), T.sharedvar.TensorSharedVariable)
