"""Test values at a glance: the summary line and the heatmap (decoded back to pixels)."""

import struct
import zlib

import numpy as np
import pytest

from symnb.printing.values import (
    NAN_COLOR, NEGINF_COLOR, POSINF_COLOR, heatmap_html, heatmap_png, value_stats,
)

VIRIDIS_LOW, VIRIDIS_HIGH = (68, 1, 84), (253, 231, 37)


def decode_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB PNG without filters (what heatmap_png writes) back to pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        chunks[kind] = chunks.get(kind, b"") + data[position + 8:position + 8 + length]
        position += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, color) == (8, 2)
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = [raw[r * (3 * width + 1):(r + 1) * (3 * width + 1)] for r in range(height)]
    assert all(row[0] == 0 for row in rows)  # no filter
    return np.array([list(row[1:]) for row in rows], dtype=np.uint8).reshape(height, width, 3)


def test_value_stats_matches_numpy():
    value = np.array([[1.0, 2.0, np.nan], [np.inf, -3.0, 4.0]], "float32")
    finite = value[np.isfinite(value)]
    expected = (f"float32 (2, 3) [[ 1., 2., nan], [inf, -3., 4.]] mean={finite.mean():.4g} std={finite.std():.4g} "
                f"min={finite.min():.4g} max={finite.max():.4g} NaN=1 inf=1")
    assert value_stats(value) == expected
    assert value_stats(np.arange(3, dtype="int8")) == "int8 (3,) [0, 1, 2] mean=1 std=0.8165 min=0 max=2"
    assert value_stats(np.float64(2.5)) == "float64 () 2.5 mean=2.5 std=0 min=2.5 max=2.5 NaN=0 inf=0"
    assert value_stats(np.zeros((0, 3), "float32")) == "float32 (0, 3)"
    assert value_stats(np.array([np.nan] * 8)) == "float64 (8,) NaN=8 inf=0"
    assert value_stats(None) == "no test value"


def test_heatmap_marks_nan_and_infinities_and_scales_the_rest():
    value = np.array([[0.0, 1.0, np.nan], [np.inf, -np.inf, 0.5]])
    pixels = decode_png(heatmap_png(value))
    assert pixels.shape == (2, 3, 3)
    assert tuple(pixels[0, 0]) == VIRIDIS_LOW and tuple(pixels[0, 1]) == VIRIDIS_HIGH
    assert tuple(pixels[1, 2]) == (33, 145, 140)  # 0.5: the middle stop
    assert tuple(pixels[0, 2]) == NAN_COLOR
    assert tuple(pixels[1, 0]) == POSINF_COLOR and tuple(pixels[1, 1]) == NEGINF_COLOR


def test_heatmap_of_a_large_value_averages_blocks_and_keeps_every_nan():
    value = np.tile(np.arange(100.0), (100, 1))  # grows left to right
    value[57, 3] = np.nan
    pixels = decode_png(heatmap_png(value))
    assert pixels.shape == (24, 48, 3)
    nan_cells = np.argwhere((pixels == NAN_COLOR).all(axis=2))
    assert nan_cells.tolist() == [[int(57 * 24 / 100), int(3 * 48 / 100)]]
    red = pixels[0, :, 0].astype(int)  # viridis's red falls then rises: check the ends
    assert tuple(pixels[0, 0]) == VIRIDIS_LOW and tuple(pixels[0, -1]) == VIRIDIS_HIGH
    assert red[0] == 68


def test_heatmap_html_for_vectors_and_matrices_only():
    html = heatmap_html(np.array([1.0, np.nan, 3.0], "float32"))
    assert html.startswith('<img class="symnb-heatmap" src="data:image/png;base64,')
    assert "NaN" in html and "+inf" not in html  # the legend names what is there
    assert heatmap_html(np.float32(1.0)) == "" and heatmap_html(np.zeros((2, 2, 2))) == ""
    with pytest.raises(ValueError, match="1-D or 2-D"):
        heatmap_png(np.zeros((2, 2, 2)))


def test_the_colour_scale_keeps_to_one_line_with_its_block_means_note():
    import re
    # 300 columns are averaged into blocks: the scale says so, in one unbroken piece
    # (in the details card's narrow inputs column it wrapped to "block / means").
    value = np.arange(300, dtype="float32")
    page = heatmap_html(value)
    scale = re.search(r'<span class="symnb-scale" style="([^"]*)">(.*)</span>', page)
    assert "white-space:nowrap" in scale.group(1)
    assert scale.group(2).startswith("<span>block means</span>")
    low, high = re.findall(r"<span>([-\d.e+]+)</span>", scale.group(2))
    # Block means lie strictly inside the range of the values they average.
    assert value.min() < float(low) < float(high) < value.max()


def test_heatmap_blocks_are_each_blocks_finite_mean_and_marks():
    """An averaged heatmap's blocks against NumPy block by block (a 50 x 100 value in at
    most 24 x 48 blocks), with a NaN, +inf and -inf marking their blocks only."""
    from symnb.printing.values import _MAX_CELLS, _blocks, _edges

    value = np.random.default_rng(0).standard_normal((50, 100))
    value[3, 5], value[40, 90], value[20, 50] = np.nan, np.inf, -np.inf
    means, nan, posinf, neginf = _blocks(value)
    rows, cols = _edges(50, _MAX_CELLS[0]), _edges(100, _MAX_CELLS[1])
    assert means.shape == (24, 48)
    for i in range(24):
        for j in range(48):
            block = value[rows[i]:rows[i + 1], cols[j]:cols[j + 1]]
            np.testing.assert_allclose(means[i, j], block[np.isfinite(block)].mean(), rtol=1e-12)
            assert nan[i, j] == np.isnan(block).any() and posinf[i, j] == np.isposinf(block).any()
            assert neginf[i, j] == np.isneginf(block).any()
    assert nan.sum() == posinf.sum() == neginf.sum() == 1
