// Bad command lines: the same messages (naming phobos-opt) and exit codes as mlir-opt.
// REQUIRES: mlir-opt
// mlir-opt's "Did you mean" picks among equally near flags in no fixed order: masked.
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py '--compare-mask=Did you mean .*' %mlir-opt %s --no-such-flag | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --canonicalze | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py '--compare-mask=Did you mean .*' %mlir-opt %s --tile-no-such-pass | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --allow-unregistered-dialect=maybe | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --mlir-elide-elementsattrs-if-larger=many | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -o %S/no-such-dir/out.mlir | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --verify-diagnostics=sometimes | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(cse)' --pass-pipeline='builtin.module(cse)' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --mlir-print-ir-after=no-such-pass | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -- | FileCheck %s
// CHECK: identical

func.func @f(%a: i32) {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = arith.addi %a, %undefined : i32
  return
}
