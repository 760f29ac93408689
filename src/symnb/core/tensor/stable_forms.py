"""Numerically stable forms of the everyday losses, recognized where they are written.

Written the textbook way, these expressions overflow, or take the log of a probability
that underflowed to 0, in their value or in their gradient. Each is replaced by an
equivalent expression over an op whose own gradient is stable:

=================================================  =======================================
written                                            built instead
=================================================  =======================================
``log(sigmoid(x))``                                ``-softplus(-x)``
``log(1 - sigmoid(x))``                            ``-softplus(x)``
``log1p(-sigmoid(x))``                             ``-softplus(x)``
``log(1 + exp(x))``, ``log(exp(x) + 1)``           ``softplus(x)``
``log1p(exp(x))``                                  ``softplus(x)``
``1 / (1 + exp(t))``, ``1 / (exp(t) + 1)``         ``sigmoid(-t)``; ``sigmoid(x)`` if t = -x,
                                                   ``sigmoid(x + b)`` if t = -x - b
``exp(x) / sum(exp(x), axes, keepdims=True)``      ``softmax(x, axes)`` (or a dimshuffle
                                                   re-inserting the summed axes)
``log(softmax(x))``                                ``log_softmax(x)``
``log(softmax(x)[index])``                         ``log_softmax(x)[index]``
=================================================  =======================================

The gradient of softplus is sigmoid, that of log_softmax ``g - exp(y) * sum(g)`` and
that of sigmoid ``g * y * sigmoid(-x)``: finite and accurate for every finite input, so
``sn.grad`` of a cross-entropy written the textbook way is finite and accurate too.

The graph keeps what the user wrote (``debugprint(T.log(T.sigmoid(z)))`` shows
``log(sigmoid(z))``, and its test value is the written expression's, ``-inf`` where it
underflows). Each form is one matcher, used in two places:

- **in the ``stabilize`` rewrite pass** (:mod:`symnb.core.rewriting.stabilize`), run
  by the ``fast_run`` and ``fast_compile`` optimizer levels: one rewrite per form,
  ``local_<form>``, declared inexact where the written form overflows (DebugMode notes
  the values it changed; the rewrite history and ``RewriteStepper`` show each one);
- **in ``sn.grad``** (:mod:`symnb.core.gradient_stable`): the gradient is built from a
  copy of the cost graph with the stable forms in place of the written ones, so it is
  finite and accurate at every optimizer level, ``None`` included.

A matcher takes the written node's inputs, its output (only its ``dtype`` and ``ndim``
are read: in ``sn.grad`` it stands for the output of the written node, which the
stable copy does not rebuild) and ``make(op, *inputs)``, which builds one node and
returns its output (``op(*inputs)`` in ``sn.grad``, ``rewriting.basic.build`` in a
rewrite). It returns the stable
expression with the dtype and number of dimensions of the written output (the input is
cast to that dtype first, so the result has the dtype NumPy gives the written
expression), or None having built nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from symnb.core.graph.basic import Variable
from symnb.core.graph.op import Op
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.nnet import Softmax
from symnb.core.tensor.patterns import is_fill_constant, other_operand, owner_op, same_computation
from symnb.core.tensor.reduction import Sum
from symnb.core.tensor.shape import DimShuffle, Reshape
from symnb.core.tensor.subtensor import AdvancedSubtensor, Subtensor
from symnb.core.graph.type import TensorType

__all__ = ["StableForm", "FORMS", "stable_equivalent", "in_dtype_of", "Make", "lifted_reshape"]

#: ``make(op, *inputs)``: build one node, return its (single) output.
Make = Callable[..., Variable]
Matcher = Callable[[Sequence[Variable], Variable, Make], "Variable | None"]


@dataclass(frozen=True)
class StableForm:
    """One written form: the op class of its outermost node, its matcher, and where the
    stable expression has the written one's value (``domain``, in words: elsewhere the
    written expression overflows or loses its digits, and the stable one does not)."""

    name: str
    op_class: type
    match: Matcher
    domain: str


FORMS: list[StableForm] = []
_FORMS_BY_OP: dict[type, list[StableForm]] = {}


def _form(op_class: type, domain: str) -> Callable[[Matcher], Matcher]:
    def register(match: Matcher) -> Matcher:
        form = StableForm(match.__name__, op_class, match, domain)
        FORMS.append(form)
        _FORMS_BY_OP.setdefault(op_class, []).append(form)
        return match

    return register


def _build_here(op: Op, *inputs: Variable) -> Variable:
    return op(*inputs)


def stable_equivalent(op: Op, inputs: Sequence[Variable], make: Make = _build_here) -> Variable | None:
    """The stable expression standing for ``op(*inputs)`` when that is one of the forms
    above, else None. By default its nodes are built as graph nodes (``op(*inputs)``,
    with test values and the calling line)."""
    forms = _FORMS_BY_OP.get(type(op), ())
    if not forms or all(v.owner is None for v in inputs):
        return None
    written = _WrittenOutput(op, inputs)
    for form in forms:
        stable = form.match(inputs, written, make)
        if stable is not None:
            return stable
    return None


class _WrittenOutput:
    """Stands for the output of ``op(*inputs)`` without building that node: its dtype and
    number of dimensions, inferred only when a matcher gets that far (most calls of
    ``T.log`` or ``/`` match no form, and should not pay for a second ``make_node``)."""

    def __init__(self, op: Op, inputs: Sequence[Variable]) -> None:
        self._op, self._inputs = op, inputs
        self._type: TensorType | None = None

    @property
    def type(self) -> TensorType:
        if self._type is None:
            self._type = self._op.make_node(*self._inputs).outputs[0].type
        return self._type

    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return self.type.ndim


# -- small builders ---------------------------------------------------------------------

def _real_float(var: Variable) -> bool:
    return var.dtype.startswith("float")  # not complex: softplus and sigmoid are real


def _stands_for(x: Variable, out: Variable) -> bool:
    """True when an elementwise function of ``x`` can stand for ``out``: a real float
    result with ``x``'s number of dimensions (a constant operand did not add any)."""
    return _real_float(out) and x.ndim == out.ndim


def in_dtype_of(x: Variable, out: Variable, make: Make) -> Variable:
    """``x`` cast to ``out``'s dtype (when it differs)."""
    return x if x.dtype == out.dtype else make(ew.Cast(out.dtype), x)


def _negated(x: Variable, make: Make) -> Variable:
    """``-x``, undoing a written negation: ``y`` when ``x`` is ``-y``, and ``y + b`` when
    ``x`` is ``-y - b`` (the logistic regression's ``exp(-dot(x, w) - b)``).

    Both are exact for floats (rounding to nearest is symmetric under negation); an
    integer negation may wrap, so it is kept.
    """
    neg = owner_op(x, ew.Neg)
    if neg is not None and _real_float(x):
        return neg.inputs[0]
    sub = owner_op(x, ew.Sub)
    neg = None if sub is None else owner_op(sub.inputs[0], ew.Neg)
    if neg is not None and _real_float(neg.outputs[0]):
        y, b = neg.inputs[0], sub.inputs[1]
        if ew.Add().output_dtype((y.dtype, b.dtype)) == x.dtype:
            return make(ew.Add(), y, b)
    return make(ew.Neg(), x)


def _neg_softplus(x: Variable, out: Variable, make: Make) -> Variable:
    """``-softplus(x)``, computed in ``out``'s dtype."""
    return make(ew.Neg(), make(ew.Softplus(), in_dtype_of(x, out, make)))


def _exp_argument(var: Variable) -> Variable | None:
    """``t`` when ``var`` is ``1 + exp(t)`` or ``exp(t) + 1``."""
    add = owner_op(var, ew.Add)
    operand = None if add is None else other_operand(add, 1)
    exp = None if operand is None else owner_op(operand, ew.Exp)
    return None if exp is None else exp.inputs[0]


# -- the forms -------------------------------------------------------------------------

@_form(ew.Log, domain=(
    "where sigmoid(x) does not underflow (x above about -87 in float32, -708 in float64), where the written log is -inf or imprecise"))
def log_sigmoid(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(sigmoid(x)) -> -softplus(-x)."""
    sigmoid = owner_op(inputs[0], ew.Sigmoid)
    if sigmoid is None or not _stands_for(sigmoid.inputs[0], out):
        return None
    minus_x = _negated(in_dtype_of(sigmoid.inputs[0], out, make), make)
    return make(ew.Neg(), make(ew.Softplus(), minus_x))


@_form(ew.Log, domain=(
    "where 1 - sigmoid(x) keeps its precision (x below about 8 in float32, 17 in float64); beyond, the written form loses digits, then is -inf"))
def log1m_sigmoid(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(1 - sigmoid(x)) -> -softplus(x)."""
    sub = owner_op(inputs[0], ew.Sub)
    if sub is None or not is_fill_constant(sub.inputs[0], 1, sub.outputs[0]):
        return None
    sigmoid = owner_op(sub.inputs[1], ew.Sigmoid)
    if sigmoid is None or not _stands_for(sigmoid.inputs[0], out):
        return None
    return _neg_softplus(sigmoid.inputs[0], out, make)


@_form(ew.Log1p, domain=(
    "where 1 - sigmoid(x) keeps its precision (x below about 8 in float32, 17 in float64); beyond, the written form loses digits, then is -inf"))
def log1p_neg_sigmoid(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log1p(-sigmoid(x)) -> -softplus(x)."""
    neg = owner_op(inputs[0], ew.Neg)
    sigmoid = None if neg is None else owner_op(neg.inputs[0], ew.Sigmoid)
    if sigmoid is None or not _stands_for(sigmoid.inputs[0], out):
        return None
    return _neg_softplus(sigmoid.inputs[0], out, make)


@_form(ew.Log, domain=(
    "where exp(x) does not overflow (x below about 88 in float32, 709 in float64), where the written form is inf"))
def log1p_exp(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(1 + exp(x)) -> softplus(x)."""
    x = _exp_argument(inputs[0])
    if x is None or not _stands_for(x, out):
        return None
    return make(ew.Softplus(), in_dtype_of(x, out, make))


@_form(ew.Log1p, domain=(
    "where exp(x) does not overflow (x below about 88 in float32, 709 in float64), where the written form is inf"))
def log1p_of_exp(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log1p(exp(x)) -> softplus(x)."""
    exp = owner_op(inputs[0], ew.Exp)
    if exp is None or not _stands_for(exp.inputs[0], out):
        return None
    return make(ew.Softplus(), in_dtype_of(exp.inputs[0], out, make))


@_form(ew.TrueDiv, domain=(
    "where exp(t) does not overflow (t below about 88 in float32, 709 in float64); the written form is then 0 where sigmoid is a tiny positive number"))
def sigmoid(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """1 / (1 + exp(t)) -> sigmoid(-t), so 1 / (1 + exp(-x)) -> sigmoid(x)."""
    one, denominator = inputs
    t = _exp_argument(denominator)
    if t is None or not is_fill_constant(one, 1, out) or not _stands_for(t, out):
        return None
    return make(ew.Sigmoid(), _negated(in_dtype_of(t, out, make), make))


@_form(ew.TrueDiv, domain=(
    "where exp(x) does not overflow (x below about 88 in float32, 709 in float64): the written form is NaN (inf / inf) there"))
def exp_over_1_plus_exp(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """exp(x) / (1 + exp(x)) -> sigmoid(x) (Theano's ``exp_over_1_plus_exp``)."""
    numerator, denominator = inputs
    exp = owner_op(numerator, ew.Exp)
    t = _exp_argument(denominator)
    if exp is None or t is None or not same_computation(exp.inputs[0], t) \
            or numerator.dtype != out.dtype or not _stands_for(t, out):
        return None
    return make(ew.Sigmoid(), in_dtype_of(t, out, make))


@_form(ew.TrueDiv, domain=(
    "where exp(x) does not overflow (x below about 88 in float32, 709 in float64) and does not underflow to 0 all along the axis: the written form is NaN there"))
def softmax(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """exp(x) / sum(exp(x), axes, keepdims=True) -> softmax(x, axes)."""
    numerator, denominator = inputs
    exp = owner_op(numerator, ew.Exp)
    if exp is None or numerator.dtype != out.dtype or denominator.dtype != out.dtype \
            or not _stands_for(exp.inputs[0], out):
        return None
    axes = _summed_axes(denominator, numerator)
    if axes is None:
        return None
    return make(Softmax(axes), exp.inputs[0])


def _summed_axes(denominator: Variable, numerator: Variable) -> tuple[int, ...] | None:
    """The axes of ``sum(numerator, axes, keepdims=True)`` when ``denominator`` is that
    sum (written with keepdims, or as a dimshuffle re-inserting the summed axes)."""
    shuffle = owner_op(denominator, DimShuffle)
    if shuffle is not None:
        total = owner_op(shuffle.inputs[0], Sum)
        if total is None or total.op.keepdims or not same_computation(total.inputs[0], numerator):
            return None
        ndim = numerator.ndim
        kept = iter(range(ndim - len(total.op.axis)))
        expected = tuple("x" if a in total.op.axis else next(kept) for a in range(ndim))
        return total.op.axis if shuffle.op.pattern == expected else None
    total = owner_op(denominator, Sum)
    if total is None or not total.op.keepdims or not same_computation(total.inputs[0], numerator):
        return None
    return total.op.axis


@_form(ew.Log, domain=(
    "where no softmax(x) value underflows to 0 or a subnormal (x - max(x) above about -87 in float32, -708 in float64), where the written log is -inf or imprecise"))
def log_softmax(inputs: Sequence[Variable], out: Variable, make: Make) -> Variable | None:
    """log(softmax(x)) -> log_softmax(x); log(softmax(x)[index]) -> log_softmax(x)[index]."""
    probabilities = inputs[0]
    indexing = owner_op(probabilities, (Subtensor, AdvancedSubtensor))
    if indexing is not None:
        probabilities = indexing.inputs[0]
    normalized = owner_op(probabilities, Softmax)
    if normalized is None or not _real_float(out) or probabilities.dtype != out.dtype:
        return None
    log_probabilities = make(normalized.op.log_op(), normalized.inputs[0])
    if indexing is None:
        return log_probabilities
    return make(indexing.op, log_probabilities, *indexing.inputs[1:])


def lifted_reshape(op: Op, inputs: Sequence[Variable]) -> Variable | None:
    """``f(reshape(x, s))`` for ``op`` a reshape of ``f(x)``, ``f`` elementwise of one
    input; else None. Theano's ``local_reshape_lift``: a written form read through a
    reshape (``log(1 - sigmoid(x).reshape(s))``) is then seen by its stable rewrite, when
    compiling (the canonicalize and stabilize passes) and by ``sn.grad``'s stable copy."""
    if not isinstance(op, Reshape) or inputs[0].owner is None:
        return None
    inner = inputs[0].owner
    if not isinstance(inner.op, ew.Elemwise) or len(inner.inputs) != 1 or inner.op.has_effects:
        return None
    reshaped = op.make_node(inner.inputs[0], inputs[1]).outputs[0]
    return inner.op.make_node(reshaped).outputs[0]
