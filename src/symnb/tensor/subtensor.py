"""``theano.tensor.subtensor``: Theano's indexing ops and functions, importable from the
module where Theano defined them (``from theano.tensor.subtensor import
AdvancedSubtensor1, set_subtensor``). Each op computes NumPy's ``x[index]`` (or writes
through it); the class says which kind of index it is, as in Theano."""

from symnb.core.graph.traceback_filter import entry_points as _entry_points
from symnb.core.tensor.subtensor import (
    Subtensor as Subtensor, IncSubtensor as IncSubtensor,
    AdvancedSubtensor1 as AdvancedSubtensor1, AdvancedIncSubtensor1 as AdvancedIncSubtensor1,
    AdvancedSubtensor as AdvancedSubtensor, AdvancedIncSubtensor as AdvancedIncSubtensor,
    AdvancedBooleanSubtensor as AdvancedBooleanSubtensor,
    AdvancedBooleanIncSubtensor as AdvancedBooleanIncSubtensor,
    inc_subtensor as inc_subtensor, set_subtensor as set_subtensor,
)
from symnb.core.tensor.subtensor_theano import (
    take as take, get_canonical_form_slice as get_canonical_form_slice,
    advanced_subtensor1 as advanced_subtensor1, advanced_inc_subtensor1 as advanced_inc_subtensor1,
    advanced_set_subtensor1 as advanced_set_subtensor1, advanced_subtensor as advanced_subtensor,
    advanced_inc_subtensor as advanced_inc_subtensor, advanced_set_subtensor as advanced_set_subtensor,
    advanced_boolean_subtensor as advanced_boolean_subtensor,
    advanced_boolean_inc_subtensor as advanced_boolean_inc_subtensor,
    advanced_boolean_set_subtensor as advanced_boolean_set_subtensor,
)

__all__ = [
    "Subtensor", "IncSubtensor", "AdvancedSubtensor1", "AdvancedIncSubtensor1", "AdvancedSubtensor",
    "AdvancedIncSubtensor", "AdvancedBooleanSubtensor", "AdvancedBooleanIncSubtensor",
    "inc_subtensor", "set_subtensor", "take", "get_canonical_form_slice", "advanced_subtensor1",
    "advanced_inc_subtensor1", "advanced_set_subtensor1", "advanced_subtensor",
    "advanced_inc_subtensor", "advanced_set_subtensor", "advanced_boolean_subtensor",
    "advanced_boolean_inc_subtensor", "advanced_boolean_set_subtensor",
]

_entry_points(globals())  # errors show the user's line (symnb.core.graph.traceback_filter)
