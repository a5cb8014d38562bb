// IR printing flags behave exactly as in mlir-opt.
// Flags taken from llvm/llvm-project mlir/test/Pass/ir-printing.mlir (stored version
// 1d6a90418e4bfc294b4174880e93cb43835ebdf5) and mlir/test/Pass/ir-printing-file-tree.mlir
// (99338ca42595947dd64f5b309e311f79e589af97), Apache-2.0 WITH LLVM-exception; checked
// against the mlir-opt of LLVM 22.1.8 (llvmorg-22.1.8). test-pass-failure is not in a
// release mlir-opt: a non-converging canonicalize{test-convergence=true} fails instead.
// REQUIRES: mlir-opt
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-disable-threading=true -pass-pipeline='builtin.module(func.func(cse,canonicalize))' -mlir-print-ir-before=cse -o /dev/null | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-disable-threading=true -pass-pipeline='builtin.module(func.func(cse,canonicalize))' -mlir-print-ir-before-all -o /dev/null | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-disable-threading=true -pass-pipeline='builtin.module(func.func(cse,canonicalize))' -mlir-print-ir-after=cse -o /dev/null | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-disable-threading=true -pass-pipeline='builtin.module(func.func(cse,canonicalize))' -mlir-print-ir-after-all -o /dev/null | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-disable-threading=true -pass-pipeline='builtin.module(func.func(cse,canonicalize))' -mlir-print-ir-before=cse -mlir-print-ir-module-scope -o /dev/null | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-disable-threading=true -pass-pipeline='builtin.module(func.func(cse,cse))' -mlir-print-ir-after-all -mlir-print-ir-after-change -o /dev/null | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-disable-threading=true -pass-pipeline='builtin.module(func.func(cse,canonicalize{test-convergence=true max-iterations=1}))' -mlir-print-ir-after-failure -o /dev/null | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -mlir-print-ir-after-all -mlir-print-debuginfo -mlir-print-op-generic --canonicalize | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-output=%t.tree %mlir-opt %s -mlir-print-ir-tree-dir=%t.tree -pass-pipeline='builtin.module(func.func(cse,canonicalize))' -mlir-print-ir-after-all -mlir-disable-threading | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-output=%t.tree %mlir-opt %s -mlir-print-ir-tree-dir=%t.tree -pass-pipeline='builtin.module(func.func(cse,canonicalize))' -mlir-print-ir-before=cse -mlir-disable-threading | FileCheck %s
// CHECK: identical

func.func @foo() {
  %0 = arith.constant 0 : i32
  return
}

func.func @bar(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %a, %c1 : i32
  %1 = arith.addi %0, %c2 : i32
  %2 = arith.muli %1, %c1 : i32
  return %2 : i32
}
