"""How a profile writes seconds: a unit a reader can take in (s, ms, µs, ns), 3-4
significant digits, never ``7.944e-03s``."""

import re

import pytest

from symnb.compile.profiling import percent_text, seconds_text


@pytest.mark.parametrize("seconds, text", [
    (7.944e-3, "7.944 ms"),        # the 7.944e-03s
    (1.2345e-4, "123.5 µs"),       # rounded to 4 significant digits (not cut)
    (2.5e-7, "250 ns"),
    (6.4e-10, "0.64 ns"),          # below a nanosecond: still in ns, never e-10
    (12.345, "12.35 s"),
    (0.9999996e-3, "1 ms"),        # 999.9996 µs rounds to 1000 µs: written 1 ms
    (3e-5, "30 µs"),
    (1234.5, "1234 s"),
    (0.0, "0 s"),
])
def test_seconds_in_a_unit_with_four_significant_digits(seconds, text):
    assert seconds_text(seconds) == text


def test_no_exponent_and_the_value_reads_back_within_rounding():
    units = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}
    for exponent in range(-10, 3):
        for mantissa in (1.0, 1.23456, 4.5, 9.87654):
            seconds = mantissa * 10.0 ** exponent
            text = seconds_text(seconds)
            assert "e" not in text, text
            number, unit = text.split(" ")
            assert float(number) * units[unit] == pytest.approx(seconds, rel=5e-4)
            digits = re.sub(r"^0\.0*|\.", "", number).rstrip("0") or "0"
            assert len(digits) <= 4, text


def test_percent_has_one_decimal():
    assert percent_text(12.345) == "12.3%" and percent_text(100) == "100.0%"
