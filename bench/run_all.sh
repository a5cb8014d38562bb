#!/usr/bin/env bash
# GPU tests and benchmarks, run from the repository root on the GPU machine
# (kernels prebuilt here by bench/aot_build.py into .cache/gpu, carried along);
# on a machine with MLIR also the compile-time benchmark. Results go to $OUT
# (else bench/results); a short table is printed last.
#
#   bash bench/run_all.sh [--handwritten]   (--handwritten: also time the hand-written cubins)
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PYTHONPATH="$PWD/python:$PWD/bench${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
RESULTS=${OUT:-bench/results}
mkdir -p "$RESULTS"
status=0
if $PY -c "from phobos.runtime import driver; driver.init()" 2>/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>/dev/null
  timeout_flag=$($PY -c "import pytest_timeout" 2>/dev/null && echo "--timeout=90")
  $PY -m pytest -q -m gpu test/unit/test_runtime_gpu.py -p no:cacheprovider -rs $timeout_flag > "$RESULTS/gpu_tests.log" 2>&1 || status=1
  grep -E "^(FAILED|ERROR)|passed|failed" "$RESULTS/gpu_tests.log" | tail -n 30
  $PY -m pytest -q -m gpu test/unit/test_graph_capture_gpu.py -p no:cacheprovider -rs $timeout_flag > "$RESULTS/graph_capture_tests.log" 2>&1 || status=1
  grep -E "^(FAILED|ERROR)|passed|failed" "$RESULTS/graph_capture_tests.log" | tail -n 10
  $PY bench/bench_launch.py || status=1
  $PY bench/bench_bandwidth.py || status=1
  $PY bench/bench_coalescing.py || status=1
  if [ -d .cache/autotune ]; then  # the tuner's candidates, from bench/autotune_build.py
    $PY -m pytest -q -m gpu test/unit/test_autotune_gpu.py -p no:cacheprovider -rs $timeout_flag > "$RESULTS/autotune_gpu_tests.log" 2>&1 || status=1
    $PY bench/bench_autotune.py || status=1
  fi
  if [ "${1:-}" = "--handwritten" ]; then
    $PY bench/bench_launch.py --handwritten || status=1
    $PY bench/bench_bandwidth.py --handwritten || status=1
  fi
else
  echo "no GPU here: GPU tests and device benchmarks skipped"
fi
if $PY -c "import mlir" 2>/dev/null; then
  $PY bench/bench_compile.py || status=1
fi
$PY bench/summary.py "$RESULTS"
exit $status
