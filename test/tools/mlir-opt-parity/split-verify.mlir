// --split-input-file and --verify-diagnostics behave exactly as in mlir-opt,
// including mismatches: unexpected errors, expectations never produced,
// regex expectations, @above/@below/@+N designators and notes.
// REQUIRES: mlir-opt
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file --verify-diagnostics=only-expected | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file --canonicalize | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --split-input-file --output-split-marker='// =====' | FileCheck %s
// CHECK: identical

func.func @ok() { return }

// -----

func.func @matched(%x: i32) {
  // expected-error @+1 {{requires the same type}}
  %0 = "arith.addi"(%x, %x) : (i32, i32) -> i64
  return
}

// -----

func.func @regex(%x: i32) {
  %0 = "arith.addi"(%x, %x) : (i32, i32) -> i64 // expected-error-re {{'arith.{{[a-z]+}}' op requires}}
  return
}

// -----

// expected-error @below {{never produced}}
func.func @unmatched() { return }

// -----

func.func @unexpected(%x: i32) {
  %0 = "arith.addi"(%x, %x) : (i32, i32) -> i64
  return
}

// -----

func.func @above(%x: i32) {
  %0 = "arith.addi"(%x, %x) : (i32, i32) -> i64
  // expected-error @above {{requires the same type}}
  return
}

// -----

func.func @near_miss(%a: i32) {
  // expected-warning @below {{requires the same type}}
  %w = "arith.addi"(%a, %a) : (i32, i32) -> i64
  return
}

// -----
%y = arith.addi %undefined, %undefined : i32
