#!/usr/bin/env bash
# issue 22's GPU check, as one short script: the test suite on the GPU, then the GPU
# benchmarks (MLP step, RNN, LeNet and call overhead against jax.jit; copies between
# host and device per call). For a machine with one NVIDIA GPU and JAX's CUDA plugin,
# symnb's dependencies installed, no network. Every step has a time limit: at most
# 3 minutes of tests and 3.2 of benchmarks (a benchmark stopped by its limit prints
# nothing more; the suite stopped by its limit prints what failed so far).
#
#   bash bench/gpu_check.sh          # on the GPU machine (device=cuda)
#   bash bench/gpu_check.sh cpu      # a quick dry run on a CPU (BENCH_QUICK=1, few tests)
#
# Everything goes to stdout and to files in $OUT (a temporary folder if unset):
# devices.txt, tests.txt, bench.txt.
set -u
cd "$(dirname "$0")/.."
DEVICE="${1:-cuda}"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1
echo "== output in $OUT; device=$DEVICE"

python -c "import jax, numpy, symnb; print('jax', jax.__version__, 'numpy', numpy.__version__, \
'symnb', symnb.__version__); print(jax.devices()); print('default backend:', jax.default_backend())" \
    2>&1 | tee "$OUT/devices.txt"

# 1. The test suite with symnb's device flag (compile/devices.py: device=cuda places shared
#    variables and runs every compiled function on the first GPU). The slow tests (fuzz,
#    browser, 10,000-node scale) are left out, as in the edit-and-run loop; the browser
#    test and the notebooks are not run (-o addopts= drops the nbval options); a module
#    whose optional dependency is missing is reported, and the others still run.
if [ "$DEVICE" = "cpu" ]; then
    TESTS="tests/compile/test_devices.py tests/lower_xla/test_persistent_cache.py"
    WORKERS=2
else
    TESTS="tests"
    WORKERS=8
fi
echo "== tests (SYMNB_FLAGS=device=$DEVICE, $TESTS)"
# Several test processes share the GPU: no process takes 75% of its memory up front.
# At the time limit pytest is interrupted (SIGINT) and still prints what failed so far.
XLA_PYTHON_CLIENT_PREALLOCATE=false SYMNB_FLAGS="device=$DEVICE" \
    timeout -s INT -k 15 "${TEST_SECONDS:-160}" python -m pytest $TESTS -o addopts= -p no:cacheprovider \
    -n "$WORKERS" --dist loadfile -q --tb=short -ra --ignore=tests/browser \
    --continue-on-collection-errors 2>&1 | tee "$OUT/tests.txt" | tail -60
echo "tests exit status: ${PIPESTATUS[0]} (2 or 124: stopped by the time limit)" | tee -a "$OUT/tests.txt"

# 2. The benchmarks, on JAX's default device (the GPU there): each prints its ratio
#    against hand-written jax.jit and its target.
# (On a CPU, a dry run: one round each, and longer limits, a CPU being slower.)
SLOW=1
if [ "$DEVICE" = "cpu" ]; then export BENCH_QUICK=1; SLOW=4; fi
{
    echo "== benchmarks on $(python -c 'import jax; print(jax.devices()[0].device_kind)')"
    timeout $((40 * SLOW)) python bench/bench_grad.py
    timeout $((40 * SLOW)) python bench/bench_scan.py
    timeout $((50 * SLOW)) python bench/bench_lenet.py
    timeout $((30 * SLOW)) python bench/bench_calls.py --quick
    timeout $((30 * SLOW)) python bench/bench_transfers.py
} 2>&1 | tee "$OUT/bench.txt"
echo "== done; files in $OUT"
