"""Theano's ``theano.compile.pfunc``: ``pfunc``, the function behind ``function``.

    from symnb.compile import pfunc          # the function (bound over this module's name)
    from symnb.compile.pfunc import pfunc

Importing this module does not import JAX; the first call does. ``rebuild_collect_shared``
(copying a graph with replacements, collecting its shared variables and their updates)
lives in :mod:`symnb.compile.rebuild`.
"""

from __future__ import annotations

from typing import Any, Sequence

from symnb.compile.rebuild import rebuild_collect_shared

__all__ = ["pfunc", "rebuild_collect_shared"]


def pfunc(params: Sequence[Any], outputs: Any = None, mode: Any = None, updates: Any = None,
          givens: Any = None, no_default_updates: Any = False, accept_inplace: bool = False,
          name: str | None = None, rebuild_strict: bool = True,
          allow_input_downcast: bool | None = None, profile: bool | None = None,
          on_unused_input: str | None = None, output_keys: Any = None) -> Any:
    """Theano 1.0's ``pfunc``: compile ``outputs`` as a function of ``params`` (variables
    or ``sn.In``), with ``updates`` and ``givens`` (:func:`symnb.compile.function.function`).

    ``accept_inplace`` is accepted and changes nothing: symnb graphs hold no in-place ops
    (XLA decides buffer reuse). ``on_unused_input=None`` is Theano's default, ``'raise'``.
    ``rebuild_strict=False`` takes a ``givens`` replacement of another type (see
    :func:`symnb.compile.function.function`). ``output_keys`` (Theano's internal keys of
    dict outputs: give ``sn.function`` a dict of outputs) is refused, saying so.
    """
    from symnb.compile.function import function  # imports JAX

    if output_keys is not None:
        raise NotImplementedError("pfunc(output_keys=...): give the outputs as a dict "
                                  "{key: variable} (Theano's function did so) instead")
    return function(list(params), outputs, updates=updates, givens=givens, mode=mode,
                    profile=profile, name=name, allow_input_downcast=allow_input_downcast,
                    on_unused_input=on_unused_input or "raise",
                    no_default_updates=no_default_updates, rebuild_strict=rebuild_strict)
