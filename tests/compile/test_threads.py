"""Calls from several threads: none fails, no update is lost, and calls over disjoint
shared variables are not serialized (each takes only its own variables' locks)."""

from __future__ import annotations

import threading

import numpy as np

import symnb as sn
import symnb.tensor as T

THREADS = 8
CALLS = 1000


def _run_threads(targets):
    """Run each callable in its own thread, started together; the errors they raised."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(targets))

    def wrapped(target):
        barrier.wait()
        try:
            target()
        except BaseException as err:  # collected: a failing call must fail the test
            errors.append(err)

    threads = [threading.Thread(target=wrapped, args=(t,)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    return errors


def test_one_function_with_updates_from_eight_threads():
    counter = sn.shared(np.int64(2**40), name="counter")
    step = sn.function([], counter, updates={counter: counter + 1})
    seen: list[list[int]] = [[] for _ in range(THREADS)]

    def worker(i):
        return lambda: seen[i].extend(int(step()) for _ in range(CALLS))

    errors = _run_threads([worker(i) for i in range(THREADS)])
    assert errors == []
    assert counter.get_value() == 2**40 + THREADS * CALLS
    assert counter.get_value().dtype == np.int64
    # Each call saw its own value: the calls were atomic.
    values = sorted(v for part in seen for v in part)
    assert values == list(range(2**40, 2**40 + THREADS * CALLS))


def test_two_functions_sharing_a_counter_lose_no_update():
    counter = sn.shared(np.int64(0), name="counter")
    other = sn.shared(np.zeros(3, "float32"), name="other")
    by_one = sn.function([], [], updates={counter: counter + 1})
    x = T.vector("x")
    by_two = sn.function([x], (other * x).sum(), updates={counter: counter + 2, other: other + x})
    ones = np.ones(3, "float32")

    def calls(fn, *args):
        def run():
            for _ in range(CALLS):
                fn(*args)
        return run

    half = THREADS // 2
    errors = _run_threads([calls(by_one)] * half + [calls(by_two, ones)] * half)
    assert errors == []
    assert counter.get_value() == half * CALLS * 1 + half * CALLS * 2
    np.testing.assert_array_equal(other.get_value(), np.full(3, half * CALLS, "float32"))


def test_get_and_set_value_from_another_thread_never_see_a_call_half_done():
    w = sn.shared(np.zeros(100_000, "float64"), name="w")
    step = sn.function([], [], updates={w: w + 1})
    reads: list[np.ndarray] = []

    def reader():
        for i in range(CALLS):
            reads.append(w.get_value())
            if i % 100 == 0:
                w.set_value(np.full(100_000, -1.0))

    errors = _run_threads([lambda: [step() for _ in range(CALLS)], reader])
    assert errors == []
    final = w.get_value()
    assert final.dtype == np.float64
    # Every value ever read is whole: all elements equal (no torn or deleted buffer).
    for value in reads + [final]:
        assert np.all(value == value[0])


def test_specializing_from_several_threads_at_once():
    n = T.lscalar("n")
    x = T.vector("x")
    grow = sn.function([x, n], T.zeros((n,)) + x[0])
    results: dict[int, np.ndarray] = {}

    def call(k):
        return lambda: results.__setitem__(k, grow(np.full(2, k, "float32"), k))

    errors = _run_threads([call(k) for k in range(1, THREADS + 1)])
    assert errors == []
    for k, value in results.items():
        np.testing.assert_array_equal(value, np.full(k, k, "float32"))


def test_functions_over_disjoint_shared_variables_take_disjoint_locks():
    a = sn.shared(np.float32(0), name="a")
    b = sn.shared(np.float32(0), name="b")
    on_a = sn.function([], [], updates={a: a + 1})
    on_b = sn.function([], b * 2)
    also_on_a = sn.function([], a + b)
    x = T.vector("x")
    without_shared = sn.function([x], x * 2)

    assert without_shared.shared_locks == ()  # no lock at all
    assert on_a.shared_locks == (a.lock,) and on_b.shared_locks == (b.lock,)
    # Locks are taken in creation order, whatever order the function lists them in.
    assert also_on_a.shared_locks == (a.lock, b.lock)
    assert sn.function([], b + a).shared_locks == (a.lock, b.lock)

    # While a call over `a` is in progress (its locks held), a call over `b` runs to the
    # end, and a call that also reads `a` waits for it.
    finished = {}

    def call(name, fn):
        return threading.Thread(target=lambda: finished.__setitem__(name, fn()))

    with a.lock:  # as a call over `a` holds it
        independent, dependent = call("b", on_b), call("a+b", also_on_a)
        independent.start()
        dependent.start()
        independent.join(timeout=30)
        assert "b" in finished  # not serialized behind the call over `a`
        dependent.join(timeout=0.2)
        assert dependent.is_alive() and "a+b" not in finished
        a.set_value(np.float32(5))  # re-entrant: the holder may use the variable
    dependent.join(timeout=30)
    assert finished["a+b"] == 5.0
