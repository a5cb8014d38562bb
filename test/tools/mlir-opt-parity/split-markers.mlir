// Custom split markers, near misses and --verify-diagnostics behave exactly as in mlir-opt.
// Flags taken from llvm/llvm-project mlir/test/mlir-opt/split-markers.mlir (stored version
// 116c3fec7fec89f6383b4ea10da34cc539578069), mlir/test/mlir-opt/expected-error-without-verify-
// diagnostics.mlir and mlir/test/Pass/full_diagnostics_only_expected.mlir, Apache-2.0 WITH
// LLVM-exception; checked against the mlir-opt of LLVM 22.1.8 (llvmorg-22.1.8).
// REQUIRES: mlir-opt
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -split-input-file="// SPLIT: ""----" -output-split-marker="// ---- next split ----" | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file='// ----' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file --output-split-marker='' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file --verify-diagnostics=only-expected | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt --split-input-file --verify-diagnostics - < %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt --split-input-file --verify-diagnostics --mlir-print-ir-after-all --canonicalize %s | FileCheck %s
// CHECK: identical

func.func @main() {return}

// -----

// expected-note @+1 {{see existing symbol definition here}}
func.func @foo() { return }
// SPLIT: ----
// ----

// expected-error @+1 {{redefinition of symbol named 'foo'}}
func.func @foo() { return }
// SPLIT: ----
// ----
func.func @bar2() {return }

// No error flagged at the end for a near miss.
// ----
