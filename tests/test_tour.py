"""The README's first command, ``python -m symnb.tour``, run as a user runs it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import symnb

ROOT = Path(symnb.__file__).parent.parent


def test_the_tour_runs_and_shows_what_it_promises(tmp_path):
    # A new user's empty cache folder: a program another test of this worker compiled
    # and kept on disk would otherwise be read back, and the tour's profile would show
    # no compile.
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "symnb.tour"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout

    # 2. The shape bug: the shapes, and the tour's own line that wrote it.
    bug = out.split("=== 2.")[1].split("=== 3.")[0]
    assert "hidden has shape (6, 8) and w1 has shape (4, 8)" in bug
    assert re.search(r'File ".*tour\.py", line \d+', bug)
    assert "scores = T.dot(hidden, w1)" in bug

    # 3. Training: the loss printed every 10 steps falls at each print.
    losses = [float(v) for v in re.findall(r"step +\d+: loss ([0-9.]+)", out)]
    assert len(losses) == 4
    assert all(later < earlier for earlier, later in zip(losses, losses[1:]))
    assert losses[-1] < losses[0] / 5

    # 4. The optimized graph, with the fused Composite; 5. a short profile, by the tour's lines.
    assert "Composite{tanh((i0 + i1))}" in out
    profile = out.split("=== 5.")[1]
    # 21 calls, 2 of which compiled (the first batch's shape, then the big batch's).
    assert "Profile of predict: 21 calls: 19 timed, 2 compiled the program" in profile
    assert "2 compile(s)" in profile
    per_call = _seconds(re.search(r"\), (\S+ \S+) per call", profile).group(1))
    inside, outside = (_seconds(v) for v in re.findall(r"(?:program|outside it) (\S+ \S+) \(", profile))
    assert per_call > 0 and inside + outside == pytest.approx(per_call, rel=2e-3)  # 4 digits each
    rows = re.findall(r"^ +([0-9.]+)%  (\S+ \S*s)  (.*)$", profile, re.M)
    assert len(rows) == 3 and any("hidden = T.tanh(T.dot(x, w1) + b1)" in row[2] for row in rows)
    assert len(profile.strip().splitlines()) <= 10  # a summary, not the tables


def _seconds(text):
    """``1.234 ms`` -> 0.001234 (the profile writes seconds in s, ms, µs or ns)."""
    number, unit = text.split(" ")
    return float(number) * {"s": 1.0, "ms": 1e-3, "\u00b5s": 1e-6, "ns": 1e-9}[unit]
