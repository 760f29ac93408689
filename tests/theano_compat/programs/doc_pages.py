"""Theano 1.0's documentation pages as a reader types them: scan's examples (the
polynomial, ``until``, ``shared`` state updated by scan, the power by repeated
multiplication), extending Theano with a Python Op (``make_node``/``perform``/
``infer_shape``/``grad``/``R_op``, and ``as_op``), ``theano.printing.debugprint`` and
``pydotprint``, ``givens``, ``profile=True``, ``compute_test_value='raise'`` and
``floatX`` arrays. Written as for Theano 1.0, with ``theano`` renamed ``symnb``."""

import numpy as np
import symnb as theano
import symnb.tensor as T
from symnb import function, shared, In


def power_by_scan(A_value, k_value):
    """'Scan: computing A**k' from the scan page."""
    k = T.iscalar("k")
    A = T.vector("A")
    result, updates = theano.scan(fn=lambda prior_result, A: prior_result * A,
                                  outputs_info=T.ones_like(A),
                                  non_sequences=A,
                                  n_steps=k)
    final_result = result[-1]
    power = theano.function(inputs=[A, k], outputs=final_result, updates=updates)
    return power(A_value, k_value)


def polynomial(coefficients_value, x_value):
    """'Iterating over the first dimension of a tensor: calculating a polynomial'."""
    coefficients = theano.tensor.vector("coefficients")
    x = T.scalar("x")
    max_coefficients_supported = 10000
    components, updates = theano.scan(fn=lambda coefficient, power, free_variable:
                                      coefficient * (free_variable ** power),
                                      outputs_info=None,
                                      sequences=[coefficients,
                                                 theano.tensor.arange(max_coefficients_supported)],
                                      non_sequences=x)
    polynomial = components.sum()
    calculate_polynomial = theano.function(inputs=[coefficients, x], outputs=polynomial)
    return calculate_polynomial(coefficients_value, x_value)


def powers_until(max_value):
    """The scan page's ``until`` example: doubling until the value passes a bound."""
    def power_of_2(previous_power, max_value):
        return previous_power * 2, theano.scan_module.until(previous_power * 2 > max_value)

    max_value_v = T.scalar()
    values, _ = theano.scan(power_of_2,
                            outputs_info=T.constant(1.),
                            non_sequences=max_value_v,
                            n_steps=1024)
    f = theano.function([max_value_v], values)
    return f(max_value)


def accumulate_with_shared(values):
    """A scan step that returns an update of a shared variable (the accumulator)."""
    total = theano.shared(np.asarray(0., dtype=theano.config.floatX), name="total")
    x = T.vector("x")
    out, updates = theano.scan(lambda x_t: {total: total + x_t}, sequences=x)
    f = theano.function([x], [], updates=updates)
    f(values)
    return total.get_value()


class DoubleOp(theano.Op):
    """The 'Creating a new Op: Python implementation' page's DoubleOp."""
    __props__ = ()

    def make_node(self, x):
        x = theano.tensor.as_tensor_variable(x)
        # Note: using x_.type() is dangerous, as it copies x's broadcasting
        # behaviour
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]

    def R_op(self, inputs, eval_points):
        # R_op can receive None as eval_points.
        # That mean there is no diferientiable path through that input
        # If this imply that you cannot compute some outputs,
        # return None for those.
        if eval_points[0] is None:
            return eval_points
        return self.grad(inputs, eval_points)


def double_op_page(x_value, v_value):
    doubleOp = DoubleOp()
    x = theano.tensor.matrix()
    f = theano.function([x], doubleOp(x))
    y = doubleOp(x).sum()
    g = theano.function([x], theano.grad(y, x))
    v = theano.tensor.matrix()
    r = theano.function([x, v], theano.gradient.Rop(doubleOp(x), x, v))
    s = theano.function([x], doubleOp(x).shape)
    return f(x_value), g(x_value), r(x_value, v_value), s(x_value)


class DoubleOp2(theano.Op):
    """The page's second form: ``itypes``/``otypes`` instead of ``make_node``."""
    __props__ = ()

    itypes = [theano.tensor.dmatrix]
    otypes = [theano.tensor.dmatrix]

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2


class AXPBOp(theano.Op):
    """The page's op with parameters in ``__props__`` (it defines no infer_shape: Theano
    ran it and took the shape it made)."""
    __props__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b
        super(AXPBOp, self).__init__()

    def make_node(self, x):
        x = theano.tensor.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = self.a * x + self.b

    def grad(self, inputs, output_grads):
        return [self.a * output_grads[0]]


def props_page(x_value):
    x = theano.tensor.dmatrix()
    mult4plus5op = AXPBOp(4, 5)
    another_mult4plus5op = AXPBOp(4, 5)
    mult2plus3op = AXPBOp(2, 3)
    assert mult4plus5op == another_mult4plus5op
    assert mult4plus5op != mult2plus3op
    f = theano.function([x], [mult4plus5op(x), DoubleOp2()(x),
                              theano.grad(mult4plus5op(x).sum(), x)])
    theano.gradient.verify_grad(mult4plus5op, [x_value], rng=np.random.RandomState(42))
    return f(x_value)


def as_op_page(a_value, b_value):
    """The page's ``as_op`` decorator, with its ``infer_shape``."""
    from symnb.compile.ops import as_op

    def infer_shape_numpy_dot(node, input_shapes):
        ashp, bshp = input_shapes
        return [ashp[:-1] + bshp[-1:]]

    @as_op(itypes=[theano.tensor.fmatrix, theano.tensor.fmatrix],
           otypes=[theano.tensor.fmatrix], infer_shape=infer_shape_numpy_dot)
    def numpy_dot(a, b):
        return np.dot(a, b)

    a = T.fmatrix('a')
    b = T.fmatrix('b')
    out = numpy_dot(a, b)
    f = theano.function([a, b], [out, out.shape])
    return f(a_value, b_value)


def printing_page(tmp_dir):
    """debugprint, pp and pydotprint of the logistic-regression prediction."""
    x = T.dmatrix('x')
    w = theano.shared(np.ones(3), name='w')
    b = theano.shared(0., name='b')
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    prediction = p_1 > 0.5
    predict = theano.function(inputs=[x], outputs=prediction)
    text = theano.printing.debugprint(prediction, file='str')
    compiled_text = theano.printing.debugprint(predict, file='str')
    pretty = theano.printing.pp(prediction)
    written = None
    try:
        theano.printing.pydotprint(predict, outfile=str(tmp_dir / "logreg_pydotprint_predict.png"),
                                   var_with_name_simple=True)
        written = tmp_dir / "logreg_pydotprint_predict.png"
    except ImportError:
        pass      # pydot is optional in Theano too: 'pydot-ng' must be installed
    return predict, text, compiled_text, pretty, written


def givens_page(x_value):
    """'Using givens' from the basic tutorial."""
    state = shared(0)
    inc = T.iscalar('inc')
    fn_of_state = state * 2 + inc
    # The type of foo must match the shared variable we are replacing
    # with the ``givens``
    foo = T.scalar(dtype=state.dtype)
    skip_shared = function([inc, foo], fn_of_state, givens=[(state, foo)])
    first = skip_shared(1, 3)
    # a function with a default and a named input
    x, y, w = T.dscalars('x', 'y', 'w')
    z = (x + y) * w
    f = function([x, In(y, value=1), In(w, value=2, name='w_by_name')], z)
    return first, state.get_value(), f(x_value), f(x_value, 3, w_by_name=5)


def profile_page(x_value):
    x, y = T.vectors('x', 'y')
    z = T.exp(x) * y
    f = theano.function([x, y], z, profile=True)
    out = f(x_value, x_value)
    return out, f.profile


def test_value_page():
    """'Using Test Values': the shape error is raised at the line that builds it."""
    old = theano.config.compute_test_value
    theano.config.compute_test_value = 'raise'
    try:
        W1val = np.random.rand(2, 10, 10).transpose(0, 2, 1)
        W1 = theano.shared(W1val, 'W1')
        W2val = np.random.rand(15, 20)
        W2 = theano.shared(W2val, 'W2')
        x = T.matrix('x')
        x.tag.test_value = np.random.rand(5, 10).astype(theano.config.floatX)
        func_of_W1 = W1.dimshuffle(2, 0, 1).flatten(2).T
        try:
            h1 = T.dot(x, func_of_W1)
        except ValueError as error:
            return func_of_W1.tag.test_value, error
        return h1.tag.test_value, None
    finally:
        theano.config.compute_test_value = old


def floatx_page(values):
    x = theano.shared(np.asarray(values, dtype=theano.config.floatX), name='x')
    y = T.vector('y')
    f = theano.function([y], (x * y).sum())
    return x.dtype, f(np.asarray(values, dtype=theano.config.floatX))
