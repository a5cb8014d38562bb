// Printing and parsing flags behave exactly as in mlir-opt.
// Flags taken from llvm/llvm-project mlir/test/IR tests: pretty-locations.mlir
// (`-mlir-print-debuginfo -mlir-pretty-debuginfo`), locations.mlir (`-mlir-print-debuginfo
// -mlir-print-local-scope`), the elided-attribute test (`-mlir-elide-elementsattrs-if-larger=2`),
// and generic-form printing (`-mlir-print-op-generic`), at the stored versions read for this
// test (e.g. 218873090 / 4472622339 in the code index); Apache-2.0 WITH LLVM-exception. Checked
// against the mlir-opt of LLVM 22.1.8 (llvmorg-22.1.8); the input is our own.
// REQUIRES: mlir-opt
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -mlir-print-debuginfo -mlir-pretty-debuginfo | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -mlir-elide-elementsattrs-if-larger=2 | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -mlir-print-op-generic -mlir-print-debuginfo | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -mlir-print-local-scope | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -mlir-print-value-users -mlir-print-unique-ssa-ids | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -mlir-print-elementsattrs-with-hex-if-larger=1 | FileCheck %s
// Without -allow-unregistered-dialect the "test.*" ops are an error.
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -no-implicit-module | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect=false | FileCheck %s
// Bytecode output is compared byte for byte.
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -emit-bytecode | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -allow-unregistered-dialect -emit-bytecode -emit-bytecode-version=1 | FileCheck %s
// RUN: %mlir-opt %s -allow-unregistered-dialect -emit-bytecode -o %t.mlirbc
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %t.mlirbc -allow-unregistered-dialect -mlir-print-debuginfo | FileCheck %s
// CHECK: identical

func.func @inline_notation(%arg0: index, %c: i1) -> i32 {
  %1 = "foo"() : () -> i32 loc("foo")
  %2 = arith.constant 4 : index loc(callsite("foo" at "mysource.cc":10:8))
  %3 = arith.constant 4 : index loc(callsite("foo" at callsite("mysource1.cc":10:8 at callsite("mysource2.cc":13:8 at "mysource3.cc":100:10))))
  scf.if %c {
  } loc(fused<"myPass">["foo", "foo2"])
  %4 = arith.addi %arg0, %2 : index loc(fused["foo", "mysource.cc":10:8])
  "test.dense_attr"() {foo.dense_attr = dense<[1, 2, 3]> : tensor<3xi32>} : () -> ()
  "test.non_elided_dense_attr"() {foo.dense_attr = dense<[1, 2]> : tensor<2xi32>} : () -> ()
  "test.sparse_attr"() {foo.sparse_attr = sparse<[[0, 0, 0]], -2.0> : vector<1x1x1xf16>} : () -> ()
  return %1 : i32 loc(unknown)
} loc("mysource.cc":10:8)
