"""Numerical stabilization: rewrite expressions that overflow or lose precision into
equivalent ones that do not (the ``stabilize`` pass).

- the stable forms of :mod:`symnb.core.tensor.stable_forms` (``log(sigmoid(x))`` ->
  ``-softplus(-x)``, ``1 / (1 + exp(-x))`` -> ``sigmoid(x)``, ``log(softmax(x))`` ->
  ``log_softmax(x)`` ...), one rewrite per form, named ``local_<form>``. The graph
  keeps what the user wrote: these rewrites make it stable when it is compiled, and the
  same matchers make ``sn.grad``'s gradients stable (``core/gradient_stable.py``);
- a softmax of the same input as a log_softmax -> ``exp(log_softmax(x))`` (one
  normalization, not two; run by the ``specialize`` pass, after the forms matched);
- Theano's error-function rewrites ``1 + erf(x)`` -> ``erfc(-x)``, ``1 - erf(x)`` ->
  ``erfc(x)`` (:mod:`symnb.core.rewriting.stabilize_erf`; the logs of these, and
  ``log(erfc(x))``, are stable forms);
- ``log(1 + x)`` -> ``log1p(x)``, ``exp(x) - 1`` -> ``expm1(x)`` (precision near 0; these
  two are left to the pass: the written forms are finite, and their gradients too).

The new expression is computed in the replaced value's dtype (the input is cast first
when NumPy's promotion made the result wider than it).

Stabilizing changes values where the original overflows or underflows (that is its
purpose): those rewrites declare where they are exact, and DebugMode reports them as
notes there. ``log1p`` and ``expm1`` differ from the original by at most a rounding.
"""

from __future__ import annotations

from symnb.core.graph.fgraph import FunctionGraph
from symnb.core.graph.basic import Apply
from symnb.core.graph.rewriting import NodeRewriter, build, node_rewriter
from symnb.core.rewriting import stabilize_erf
from symnb.core.rewriting.utils import as_type_of, is_fill_constant, other_operand, owner_op
from symnb.core.tensor import elemwise as ew
from symnb.core.tensor.nnet import LogSoftmax, Softmax
from symnb.core.tensor.stable_forms import FORMS, StableForm, in_dtype_of
from symnb.core.graph.type import is_float

__all__ = ["REWRITES", "LATER"]


def _form_rewrite(form: StableForm) -> NodeRewriter:
    """The rewrite replacing ``form``'s written expression by its stable equivalent."""
    def rewrite(fgraph: FunctionGraph, node: Apply):
        return form.match(node.inputs, node.outputs[0], build)

    rewrite.__doc__ = form.match.__doc__
    return NodeRewriter(rewrite, [form.op_class], name=f"local_{form.name}", exact=form.domain)


@node_rewriter([LogSoftmax])
def local_softmax_from_log_softmax(fgraph: FunctionGraph, node: Apply):
    """softmax(x) -> exp(log_softmax(x)) when log_softmax(x) over the same axes is
    computed too, so the normalization is computed once."""
    x = node.inputs[0]
    for reader, _ in fgraph.clients.get(x, {}):
        if reader != "output" and isinstance(reader.op, Softmax) and reader.op.axis == node.op.axis:
            return {reader.outputs[0]: build(ew.Exp(), node.outputs[0])}
    return None


@node_rewriter([ew.Log])
def local_log1p(fgraph: FunctionGraph, node: Apply):
    """log(1 + x) -> log1p(x) for a float x."""
    add = owner_op(node.inputs[0], ew.Add)
    x = None if add is None else other_operand(add, 1)
    if x is None or not is_float(x.dtype) or x.dtype != add.outputs[0].dtype:
        return None
    return as_type_of(build(ew.Log1p(), x), node.outputs[0])


@node_rewriter([ew.Sub])
def local_expm1(fgraph: FunctionGraph, node: Apply):
    """exp(x) - 1 -> expm1(x)."""
    e, one = node.inputs
    exp = owner_op(e, ew.Exp)
    out = node.outputs[0]
    if exp is None or not is_fill_constant(one, 1, out) or e.dtype != out.dtype or e.ndim != out.ndim:
        return None
    return build(ew.Expm1(), in_dtype_of(exp.inputs[0], out, build))


# The stable forms come first: log(1 + exp(x)) must become softplus(x), not log1p(exp(x))
# (and log(1 + erf(x)) its stable form); the erf rewrites before log1p, for the same reason.
REWRITES = [_form_rewrite(form) for form in FORMS] + stabilize_erf.REWRITES + [local_log1p, local_expm1]

#: Run by the ``specialize`` pass, after this one: rewritten here, a softmax read by a
#: written ``log(softmax(x)[index])`` would no longer match the ``log_softmax`` form
#: (the gradient ``sn.grad`` builds holds ``log_softmax(x)`` beside it).
LATER = [local_softmax_from_log_softmax]
