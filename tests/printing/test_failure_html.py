"""failure_html: an error's message is read whole (long lines wrap, not clipped at the
output's edge) and the values tables' row headers keep to one line."""

import html
import re

import numpy as np
import pytest

import symnb as sn
import symnb.tensor as T
from symnb.printing.failure import failure_html


def _build_error():
    x = T.matrix("x", test_value=np.ones((3, 4), "float32"))
    w = sn.shared(np.linspace(-1, 1, 8, dtype="float32").reshape(4, 2), name="w_with_a_long_name")
    hidden = T.tanh(T.dot(x, w))
    with pytest.raises(sn.TestValueError) as caught:
        T.dot(hidden, w)
    return caught.value


def test_the_message_wraps_instead_of_running_past_the_edge():
    error = _build_error()
    page = failure_html(error)
    message = re.search(r'<div class="symnb-failure-message"><pre style="([^"]*)">(.*?)</pre>', page, re.S)
    style, text = message.groups()
    assert "white-space:pre-wrap" in style and "overflow-wrap:anywhere" in style
    # The whole message is there (the line naming w is longer than an output area).
    assert html.unescape(text) == str(error)
    assert max(len(line) for line in str(error).splitlines()) > 100


def test_row_headers_stay_on_one_line():
    page = failure_html(_build_error())
    headers = re.findall(r'<th style="([^"]*)">(input #\d)</th>', page)
    assert [h for _, h in headers] == ["input #0", "input #1"]
    assert all("white-space:nowrap" in style for style, _ in headers)
