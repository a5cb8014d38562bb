// On upstream-only input and passes, phobos-opt must behave exactly as mlir-opt:
// same stdout, stderr and exit code.
// REQUIRES: mlir-opt
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --canonicalize --cse | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(func.func(cse),canonicalize)' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(cse)' --mlir-print-ir-after-all | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(canonicalize)' --mlir-print-ir-before-all --mlir-print-debuginfo | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --mlir-print-op-generic | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --mlir-print-debuginfo | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --mlir-print-local-scope --mlir-print-debuginfo | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt - --canonicalize < %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --convert-scf-to-cf --convert-arith-to-llvm | FileCheck %s
// Bad pipelines: the same diagnostics and exit code 1.
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(no-such-pass)' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='canonicalize' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(canonicalize' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(canonicalize{no-such-option=1})' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='func.func(cse)' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %S/does-not-exist.mlir | FileCheck %s
// CHECK: identical

func.func @fold(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = arith.muli %0, %0 : i32
  %2 = arith.muli %0, %0 : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}

func.func @loop(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    %y = arith.addf %acc, %acc : f32
    scf.yield %y : f32
  }
  return %r : f32
}
