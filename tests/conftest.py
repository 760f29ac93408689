import atexit
import os
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# The per-user cache folder (core.config.user_cache_dir: the persistent compilation
# cache) is a temporary one for the tests and the processes they start, so that the
# suite never reads programs from, nor writes them to, the user's own cache. Set before
# symnb is imported (the flag's default is read then).
_CACHE_HOME = tempfile.mkdtemp(prefix="symnb-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)

import symnb as sn  # noqa: E402

# The fuzz tests' profiles (tests/fuzz/). "ci", the default: 500 examples of each,
# derandomized (the same examples on every run, no example database), so a failure
# reproduces. "long" (--hypothesis-profile=long): 10,000 examples, derandomized too.
_FUZZ = dict(deadline=None, derandomize=True, database=None, print_blob=True,
             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=500, **_FUZZ)
settings.register_profile("long", max_examples=10_000, **_FUZZ)
settings.load_profile("ci")


# Tests marked ``slow`` (the fuzz tests, the browser test, the 10,000-node scale tests) run
# with --run-slow, as the README's test command and CI do; a plain ``python -m pytest``,
# the edit-and-run loop, leaves them out.
def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the tests marked slow (what CI runs)")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow(minutes=1): a long test (fuzz, browser, 10,000-node "
                                       "scale); runs with --run-slow; minutes, its order of "
                                       "magnitude on 2 cores, orders the files (longest first)")
    if config.getoption("--run-slow") and hasattr(config.option, "loadscopereorder"):
        # pytest-xdist >= 3.6 hands out the files with the most tests first, which would
        # undo _longest_files_first (the half-hour suites are a few tests each) and leave
        # them to run last, one core idle; keep the order collected.
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        _longest_files_first(items)
        return
    kept = [item for item in items if "slow" not in item.keywords]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if "slow" in item.keywords])
        items[:] = kept


def _longest_files_first(items):
    """Order the files by the minutes their slow tests declare, longest first.

    The cores take whole files (--dist loadfile) in collection order (pytest_configure
    turns off xdist's reordering by test count), each keeping the next file queued, so a
    half-hour file collected last (Theano's own suite, tests/theano_compat) would start
    when the rest is done and run alone, the other core idle: started first, it runs
    beside the short files. ``slow(minutes=N)`` declares a test's order of magnitude on
    2 cores (CI's); a slow test without it counts as one minute, the rest as none. A
    stable sort: the order is otherwise kept.
    """
    minutes: dict = {}
    for item in items:
        marker = item.get_closest_marker("slow")
        if marker is not None:
            minutes[item.path] = max(minutes.get(item.path, 0), marker.kwargs.get("minutes", 1))
    items.sort(key=lambda item: -minutes.get(item.path, 0))


@pytest.fixture(autouse=True)
def _restore_config():
    """Each test starts from the default flags and leaves them as it found them."""
    with sn.config.change_flags():
        yield


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
