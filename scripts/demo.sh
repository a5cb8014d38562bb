#!/usr/bin/env bash
# The main job: take an example tile kernel through the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== examples/scale.mlir: verified tile IR (phobos-opt)"
phobos-opt examples/scale.mlir --pass-pipeline='builtin.module(tile-verify,canonicalize)'

echo
echo "== examples/saxpy.ph and examples/gemm_fp32.ph: compiled to cubins, run (on the GPU, else in the interpreter) and checked against numpy"
python bench/demo_run.py
