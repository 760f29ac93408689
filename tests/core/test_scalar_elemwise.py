"""T.Elemwise(scalar_op): Theano's extension point, as PyMC3 3.9.3 uses it.

The scalar ops below are PyMC3 3.9.3's own definitions (pymc3/distributions/special.py,
dist_math.py, theanof.py) with ``theano`` spelled ``symnb``: test values, compiled values
and gradients are checked against SciPy and finite differences."""

import numpy as np
import pytest
import scipy.special

import symnb
import symnb as sn
import symnb.tensor as tt
from symnb import scalar
from symnb.gradient import verify_grad
from symnb.lower_xla.registry import runs_on_host
from symnb.scalar import UnaryScalarOp, upgrade_to_float_no_complex
from symnb.scalar.basic_scipy import GammaLn, Psi
from tests.reference import check_paths

# -- PyMC3 3.9.3, pymc3/distributions/special.py ------------------------------------------
scalar_gammaln = GammaLn(scalar.upgrade_to_float, name='scalar_gammaln')
gammaln = tt.Elemwise(scalar_gammaln, name='gammaln')

scalar_psi = Psi(scalar.upgrade_to_float, name='scalar_psi')
psi = tt.Elemwise(scalar_psi, name='psi')


# -- PyMC3 3.9.3, pymc3/distributions/dist_math.py ----------------------------------------
class I1e(UnaryScalarOp):
    """
    Modified Bessel function of the first kind of order 1, exponentially scaled.
    """
    nfunc_spec = ('scipy.special.i1e', 1, 1)

    def impl(self, x):
        return scipy.special.i1e(x)


i1e_scalar = I1e(upgrade_to_float_no_complex, name="i1e")
i1e = tt.Elemwise(i1e_scalar, name="Elemwise{i1e,no_inplace}")


class I0e(UnaryScalarOp):
    """
    Modified Bessel function of the first kind of order 0, exponentially scaled.
    """
    nfunc_spec = ('scipy.special.i0e', 1, 1)

    def impl(self, x):
        return scipy.special.i0e(x)

    def grad(self, inp, grads):
        x, = inp
        gz, = grads
        return gz * (i1e_scalar(x) - symnb.scalar.sgn(x) * i0e_scalar(x)),


i0e_scalar = I0e(upgrade_to_float_no_complex, name="i0e")
i0e = tt.Elemwise(i0e_scalar, name="Elemwise{i0e,no_inplace}")


# -- PyMC3 3.9.3, pymc3/theanof.py ---------------------------------------------------------
class IdentityOp(scalar.UnaryScalarOp):

    @staticmethod
    def st_impl(x):
        return x

    def impl(self, x):
        return x

    def grad(self, inp, grads):
        return grads

    def c_code(self, node, name, inp, out, sub):
        return "{z} = {x};".format(x=inp[0], z=out[0])

    def __eq__(self, other):
        return isinstance(self, type(other))

    def __hash__(self):
        return hash(type(self))


scalar_identity = IdentityOp(scalar.upgrade_to_float, name='scalar_identity')
identity = tt.Elemwise(scalar_identity, name='identity')


# -- an op with an impl only (no nfunc_spec, no JAX function): run on the host ------------
class LogisticImpl(UnaryScalarOp):
    """1 / (1 + exp(-x)) computed per element by ``impl`` (math.exp on Python floats)."""

    def impl(self, x):
        import math
        return 1.0 / (1.0 + math.exp(-x))

    def grad(self, inputs, grads):
        (x,), (gz,) = inputs, grads
        s = logistic_impl(x)
        return [gz * s * (1 - s)]


logistic_impl = LogisticImpl(scalar.upgrade_to_float, name="logistic_impl")


RNG = np.random.default_rng(0)
POSITIVE = {"float32": RNG.uniform(0.2, 6.0, size=(3, 4)).astype("float32"),
            "float64": RNG.uniform(0.2, 6.0, size=(3, 4))}
SIGNED = {"float32": RNG.uniform(-4.0, 4.0, size=(3, 4)).astype("float32"),
          "float64": RNG.uniform(-4.0, 4.0, size=(3, 4))}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op, reference, values", [
    (gammaln, scipy.special.gammaln, POSITIVE), (psi, scipy.special.psi, POSITIVE),
    (i0e, scipy.special.i0e, SIGNED), (i1e, scipy.special.i1e, SIGNED),
    (identity, lambda x: x, SIGNED),
])
def test_pymc3_scalar_ops_test_values_and_compiled_values(op, reference, values, dtype):
    x = values[dtype]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    check_paths(op, [x], lambda v: reference(v).astype(dtype), rtol=rtol)


def test_an_impl_only_op_runs_per_element_and_on_the_host_when_compiled():
    x = SIGNED["float64"]
    node_op = tt.Elemwise(logistic_impl)
    check_paths(node_op, [x], lambda v: 1 / (1 + np.exp(-v)))
    assert runs_on_host(node_op)
    assert not runs_on_host(gammaln) and not runs_on_host(i0e)


def test_output_dtypes_follow_the_scalar_ops_preference():
    assert gammaln(tt.ivector("n")).dtype == "float64"   # int32: float64
    assert gammaln(tt.bvector("n")).dtype == "float32"   # int8: float32
    assert gammaln(tt.fvector("x")).dtype == "float32"
    n = np.array([1, 4, 7], dtype="int8")
    check_paths(gammaln, [n], lambda v: scipy.special.gammaln(v).astype("float32"))
    with pytest.raises(TypeError, match="complex"):
        i0e(tt.tensor("complex64", shape=(None,)))


def test_inputs_broadcast_as_every_elementwise_op():
    gammainc = tt.Elemwise(symnb.scalar.basic_scipy.gammainc)
    k = np.array([[0.5], [2.0], [4.0]])
    x = np.array([0.1, 1.0, 3.0, 8.0])
    out = check_paths(gammainc, [k, x], scipy.special.gammainc)
    assert out.shape == (3, 4)
    with pytest.raises(ValueError, match="mis-match"):
        gammainc(tt.vector("a", shape=(3,)), tt.vector("b", shape=(4,)))


@pytest.mark.parametrize("op, values", [(gammaln, POSITIVE), (psi, POSITIVE), (i0e, SIGNED),
                                        (identity, SIGNED), (tt.Elemwise(logistic_impl), SIGNED)])
def test_gradients_against_finite_differences(op, values):
    verify_grad(op, [values["float64"]])


def test_gradient_inside_grad_of_a_sum_with_broadcasting_float32():
    x = tt.fvector("x", test_value=np.array([0.5, 1.5, 2.5], dtype="float32"))
    a = tt.fmatrix("a", test_value=np.ones((2, 1), dtype="float32"))
    cost = gammaln(x * a).sum()   # (2, 3): x broadcast along rows, a along columns
    gx, ga = sn.grad(cost, [x, a])
    assert gx.dtype == ga.dtype == "float32"
    expected_gx = 2 * scipy.special.psi(x.test_value)
    expected_ga = np.full((2, 1), (x.test_value * scipy.special.psi(x.test_value)).sum())
    np.testing.assert_allclose(gx.test_value, expected_gx, rtol=1e-5)
    np.testing.assert_allclose(ga.test_value, expected_ga, rtol=1e-5)
    compiled_gx, compiled_ga = sn.function([x, a], [gx, ga])(x.test_value, a.test_value)
    np.testing.assert_allclose(compiled_gx, expected_gx, rtol=1e-5)
    np.testing.assert_allclose(compiled_ga, expected_ga, rtol=1e-5)


def test_the_grad_of_i0e_builds_scalar_ops_on_tensors():
    x = tt.dvector("x", test_value=SIGNED["float64"][0])
    (g,) = sn.grad(i0e(x).sum(), [x])
    t = x.test_value
    expected = scipy.special.i1e(t) - np.sign(t) * scipy.special.i0e(t)
    np.testing.assert_allclose(g.test_value, expected, rtol=1e-12)
    ops = {type(node.op).__name__ for node in sn.gof.graph.io_toposort([x], [g])}
    assert "Sign" in ops  # symnb.scalar.sgn(x) on a tensor is T.sign


def test_equal_by_scalar_op_and_named_as_theano():
    assert tt.Elemwise(GammaLn(scalar.upgrade_to_float)) == gammaln
    assert hash(tt.Elemwise(GammaLn(scalar.upgrade_to_float))) == hash(gammaln)
    assert tt.Elemwise(GammaLn(scalar.upgrade_to_float_no_complex)) != gammaln
    assert gammaln != psi
    assert str(gammaln) == "gammaln" and str(i0e) == "Elemwise{i0e,no_inplace}"
    assert str(tt.Elemwise(I0e(upgrade_to_float_no_complex))) == "Elemwise{I0e}"
    assert isinstance(gammaln, tt.Elemwise) and gammaln.scalar_op is scalar_gammaln


def test_fusion_and_rewrites_leave_it_in_place():
    x = tt.dvector("x", test_value=POSITIVE["float64"][0])
    y = tt.exp(gammaln(x * 2.0) + 1.0) * 3.0
    f = sn.function([x], y)
    assert any(node.op == gammaln for node in f.maker.fgraph.toposort())
    t = x.test_value
    np.testing.assert_allclose(f(t), np.exp(scipy.special.gammaln(t * 2) + 1) * 3, rtol=1e-12)


def test_a_scalar_op_called_on_tensors_applies_elementwise():
    x = tt.dvector("x", test_value=POSITIVE["float64"][0])
    y = scalar_gammaln(x)
    assert y.owner.op == gammaln
    np.testing.assert_allclose(y.test_value, scipy.special.gammaln(x.test_value))
    # symnb's own scalar ops build the tensor op of their row
    assert type(scalar.exp(x).owner.op).__name__ == "Exp"
    assert type(scalar.add(x, x, x).owner.op).__name__ == "Add"


def test_elemwise_of_symnbs_own_scalar_ops():
    x = SIGNED["float32"]
    check_paths(tt.Elemwise(scalar.exp), [x], np.exp)
    check_paths(tt.Elemwise(scalar.sgn), [x], np.sign)
    check_paths(lambda a, b: tt.Elemwise(scalar.add)(a, b, a), [x, x], lambda a, b: a + b + a)
    check_paths(tt.Elemwise(scalar.Exp(scalar.upgrade_to_float)), [np.arange(4, dtype="int8")],
                lambda v: np.exp(v.astype("float32")))
    verify_grad(tt.Elemwise(scalar.mul), [SIGNED["float64"], POSITIVE["float64"]])


def test_a_rows_tensor_op_carries_theanos_scalar_op():
    # Theano's T.neg is Elemwise(scalar.neg): tests read node.op.scalar_op
    from symnb.tensor.nnet import sigm

    assert isinstance(tt.neg.scalar_op, scalar.Neg) and tt.neg.scalar_op is scalar.neg
    assert isinstance(tt.maximum.scalar_op, scalar.Maximum)
    assert isinstance(sigm.softplus.scalar_op, sigm.ScalarSoftplus)
    assert sigm.sigmoid.scalar_op is sigm.scalar_sigmoid
    assert getattr(tt.cast(tt.dvector(), "int32").owner.op, "scalar_op", None) is None
    # the scalar op computes what the row computes
    x = SIGNED["float64"]
    check_paths(tt.Elemwise(sigm.sigmoid.scalar_op), [x], scipy.special.expit)
    check_paths(tt.Elemwise(sigm.softplus.scalar_op), [x], lambda v: np.logaddexp(0, v))
    check_paths(tt.Elemwise(tt.neg.scalar_op), [x], np.negative)


def test_a_subclass_redefining_impl_is_computed_with_its_impl():
    class Exp2(scalar.Exp):
        def impl(self, x):
            return 2.0 ** x

    op = tt.Elemwise(Exp2(scalar.upgrade_to_float))
    check_paths(op, [SIGNED["float64"]], lambda v: 2.0 ** v)
    assert runs_on_host(op)


@pytest.mark.parametrize("name, reference, low, high", [
    ("erfc", scipy.special.erfc, -2, 2), ("erfcx", scipy.special.erfcx, -1, 3),
    ("erfinv", scipy.special.erfinv, -0.9, 0.9), ("erfcinv", scipy.special.erfcinv, 0.1, 1.9),
    ("gamma", scipy.special.gamma, 0.3, 4), ("tri_gamma", lambda v: scipy.special.polygamma(1, v), 0.3, 5),
    ("i0", scipy.special.i0, -3, 3), ("i1", scipy.special.i1, -3, 3),
    ("j0", scipy.special.j0, -5, 5), ("j1", scipy.special.j1, -5, 5),
])
def test_basic_scipy_values(name, reference, low, high):
    op = getattr(symnb.scalar.basic_scipy, name)
    x = RNG.uniform(low, high, size=7)
    check_paths(lambda v: op(v), [x], reference, rtol=1e-9)


@pytest.mark.parametrize("name, low, high", [
    ("erfc", -2, 2), ("erfcx", -1, 2), ("erfinv", -0.8, 0.8), ("erfcinv", 0.2, 1.8),
    ("gamma", 0.5, 3), ("psi", 0.5, 4), ("i0", -3, 3), ("i1", 0.3, 3), ("j0", -4, 4), ("j1", 0.3, 4),
])
def test_basic_scipy_gradients(name, low, high):
    op = getattr(symnb.scalar.basic_scipy, name)
    verify_grad(lambda v: op(v), [RNG.uniform(low, high, size=5)])


def test_an_op_without_grad_says_so():
    x = tt.dvector("x", test_value=POSITIVE["float64"][0])
    with pytest.raises(NotImplementedError, match="tri_gamma"):
        sn.grad(symnb.scalar.basic_scipy.tri_gamma(x).sum(), x)


def test_variadic_add_and_mul():
    a, b, c = (SIGNED["float64"][i] for i in range(3))
    check_paths(lambda x, y, z: tt.add(x, y, z, 1.5), [a, b, c], lambda x, y, z: x + y + z + 1.5)
    check_paths(lambda x, y, z: tt.mul(x, y, z), [a, b, c], lambda x, y, z: x * y * z)
    x = tt.fvector("x", test_value=a.astype("float32"))
    assert tt.add(x, 1.0, 2.0).dtype == "float32"  # Python floats are floatX constants (Theano)
    assert tt.add(x) is x
    with pytest.raises(TypeError):
        tt.add()


def test_printers_show_it():
    x = tt.dvector("x", test_value=POSITIVE["float64"][0])
    y = gammaln(x) + i0e(x)
    assert sn.printing.pprint(y) == "(scalar_gammaln(x) + i0e(x))"
    text = sn.printing.debugprint(y, file="str")
    assert "gammaln" in text and "Elemwise{i0e,no_inplace}" in text
    assert "<svg" in sn.printing.graph_svg(y)


@pytest.mark.parametrize("shape", [(0,), (1,), (), (2, 0)])
def test_empty_size_one_and_0d_values(shape):
    x = np.full(shape, 1.5)
    check_paths(gammaln, [x], scipy.special.gammaln)
    check_paths(tt.Elemwise(logistic_impl), [x], lambda v: 1 / (1 + np.exp(-v)))


def test_mistakes_are_refused_naming_the_op():
    x = tt.dvector("x", test_value=POSITIVE["float64"][0])
    with pytest.raises(TypeError, match="gammaln takes 1 input"):
        gammaln(x, x)
    with pytest.raises(TypeError, match="output_types_preference"):
        tt.Elemwise(I1e())(x)  # no preference: no output type
    with pytest.raises(TypeError, match="scalar op"):
        tt.Elemwise(np.exp)


def test_a_scalar_ops_null_gradient_stays_null_through_elemwise():
    """A user's ScalarOp whose grad returns grad_not_implemented for one input (and whose
    __init__ does not call ScalarOp's): grad raises NullTypeGradError where the cost depends
    on that input, and differentiates the other input (d(n * x)/dx = n)."""
    import symnb.gradient
    from symnb import scalar as scal

    class Scale(scal.ScalarOp):
        def __init__(self):
            self.output_types_preference = scal.upgrade_to_float

        def impl(self, n, x):
            return x * n

        def grad(self, inputs, gout):
            n, _ = inputs
            return [symnb.gradient.grad_not_implemented(self, 0, n), gout[0] * n]

    scale = tt.Elemwise(Scale())
    x = tt.dscalar("x")
    np.testing.assert_allclose(sn.function([x], sn.grad(scale(3.0, x), x))(2.0), 3.0)
    with pytest.raises(symnb.gradient.NullTypeGradError):
        sn.grad(scale(x, 2.0), x)


def test_op_name_is_theanos():
    # Theano's graph-structures page: ``(x * 2.).owner.op.name`` is 'Elemwise{mul,no_inplace}';
    # an Elemwise made from a scalar op keeps the name it is given (None by default).
    x = tt.dmatrix("x")
    assert (x * 2.0).owner.op.name == "Elemwise{mul,no_inplace}"
    assert tt.tanh.name == "Elemwise{tanh,no_inplace}" and tt.erfc.name == "Elemwise{erfc,no_inplace}"
    assert tt.Elemwise(scalar.add).name is None
    assert tt.Elemwise(scalar.add, name="my_add").name == "my_add"
