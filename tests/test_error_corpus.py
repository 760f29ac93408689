"""What a user sees of each bug of the corpus (``tests/error_corpus.py``): its message and
its HTML (``err`` shown in a notebook cell) hold no internal name (a rewrite's name, a
type's repr, a toposort position, a debugprint's ids) unless
``exception_verbosity='high'``, and run-time headlines name inputs by name."""

import html
import re

import pytest

import symnb as sn
import symnb.printing  # noqa: F401 -- registers the errors' HTML
from symnb.core.rewriting.passes import PASSES
from tests.error_corpus import CASES


def _rewrite_names() -> set[str]:
    """Every registered rewrite's name that reads as an identifier (``scan_keep_last_step``)."""
    names = {getattr(r, "name", None) or getattr(r, "__name__", "")
             for p in PASSES.values() for r in getattr(p, "rewrites", ())}
    return {name for name in names if "_" in name}


#: What gives an internal name away, with why it is one.
INTERNAL = {
    r"<\w*Type\(": "a type's repr, e.g. <TensorType(float32, shape=())>",
    r"\bTensorType\(": "a type's repr",
    r"[Tt]oposort": "a node's position in the toposort",
    r"\[id [A-Z]+\]": "a debugprint's ids",
    r"Composite\{": "a fused chain's generated name",
    **{rf"\b{re.escape(name)}\b": "a rewrite's name" for name in _rewrite_names()},
}


def internal_names(text: str) -> list[str]:
    """The internal names found in ``text`` (each pattern's first match)."""
    found = (re.search(pattern, text) for pattern in INTERNAL)
    return [match.group(0) for match in found if match is not None]


def views(error: BaseException) -> dict[str, str]:
    """Every user-facing view of an error: its message and its HTML (as text)."""
    return {"str": str(error), "html": html.unescape(error._repr_html_())}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_internal_name_in_any_view_of_a_bug(name):
    error = CASES[name]()
    for view, text in views(error).items():
        assert internal_names(text) == [], (name, view, text)


def test_the_corpus_has_every_kind_of_failure():
    kinds = {type(CASES[name]()).__name__ for name in CASES}
    assert {"TestValueError", "GraphRuntimeError", "IndexOutOfBoundsError", "AssertionFailedError",
            "NanGuardError"} <= kinds


@pytest.mark.parametrize("name", ["index_seven_at_iteration_three", "shape_mismatch_in_a_loop_body"])
def test_internal_names_show_under_exception_verbosity_high(name):
    # The search finds them where they are meant to be: 'high' shows toposort positions.
    with sn.config.change_flags(exception_verbosity="high"):
        error = CASES[name]()
    assert "Toposort" in internal_names(str(error))


RUN_TIME = ["dot_called_with_shapes_that_do_not_fit", "concatenate_called_with_shapes_that_do_not_fit",
            "index_seven_at_iteration_three", "shape_mismatch_in_a_loop_body"]


@pytest.mark.parametrize("name", RUN_TIME)
def test_run_time_headlines_name_inputs(name):
    headline = str(CASES[name]()).splitlines()[0]
    assert "while running" in headline
    assert not re.search(r"input #\d", headline), headline


def test_the_issues_dot_headline_names_x_and_w():
    headline = str(CASES["dot_called_with_shapes_that_do_not_fit"]()).splitlines()[0]
    # The words of the build-time check (symnb.core.tensor.blas), with the call's shapes.
    assert headline.endswith(": x has shape (7, 2) and W has shape (3, 4): inner dimensions 2 and 3 "
                             "differ (axis 1 of x, axis 0 of W)")
