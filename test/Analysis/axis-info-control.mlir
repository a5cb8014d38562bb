// Axis info through structured control flow: scf.for induction variables,
// loop-carried values (an optimistic start, joined to a fixed point) and
// scf.if results.
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-test-print-axis-info)' 2>&1 | FileCheck %s

// CHECK-LABEL: axis-info @loops:
// CHECK:      %c1 => contiguity = [1], divisibility = [1], constancy = [1], constant = 1, non_negative = true
// Results (the fixed point), then the iv and the carried values, then the body.
// CHECK-NEXT: %0#0 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %0#1 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %0#2 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %0#3 => contiguity = [1], divisibility = [4611686018427387904], constancy = [1], constant = 0, non_negative = true
// CHECK-NEXT: %arg2 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg3 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg4 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg5 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg6 => contiguity = [1], divisibility = [4611686018427387904], constancy = [1], constant = 0, non_negative = true
// CHECK-NEXT: %1 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %2 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %3 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
// The second loop: lb 4, a step divisible by 32.
// CHECK-NEXT: %arg2 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %1 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = true
func.func @loops(%K: index {tile.divisibility = array<i64: 16>}, %step: index {tile.divisibility = array<i64: 32>}) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  // The iv is lb + k * step: divisible by what divides both.
  // Carried values: %a stays a multiple of 64, %b does not stay a constant,
  // %c loses its divisibility after one trip, %d stays 0 (it is yielded unchanged).
  %r:4 = scf.for %i = %c0 to %K step %c64 iter_args(%a = %c0, %b = %c64, %c = %c64, %d = %c0) -> (index, index, index, index) {
    %a2 = arith.addi %a, %c64 : index
    %b2 = arith.addi %b, %i : index
    %c2 = arith.addi %c, %c1 : index
    scf.yield %a2, %b2, %c2, %d : index, index, index, index
  }
  // A step known only from specialisation, from an odd start.
  scf.for %j = %c4 to %K step %step {
    %inner = arith.muli %j, %c4 : index
  }
  return
}
// CHECK-LABEL: axis-info @nested:
// CHECK:      %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %1 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg1 => contiguity = [1], divisibility = [8], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg2 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %2 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg3 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %arg4 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [16], constancy = [16], constant = 16, non_negative = true
// CHECK-NEXT: %3 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant dense<0> : tensor<16xi32>
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // A tile carried through two loops keeps its runs: r + 16 * k.
  %out = scf.for %i = %c0 to %n step %c8 iter_args(%t = %r) -> tensor<16xi32> {
    %in = scf.for %j = %c0 to %n step %c16 iter_args(%u = %t) -> tensor<16xi32> {
      %s = arith.constant dense<16> : tensor<16xi32>
      %u2 = arith.addi %u, %s : tensor<16xi32>
      scf.yield %u2 : tensor<16xi32>
    }
    scf.yield %in : tensor<16xi32>
  }
  return
}
// CHECK-LABEL: axis-info @branches:
// CHECK:      %c12 => contiguity = [1], divisibility = [4], constancy = [1], constant = 12, non_negative = true
// CHECK-NEXT: %0 => contiguity = [1], divisibility = [8], constancy = [1], constant = none, non_negative = false
// CHECK-NEXT: %1 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = true
// CHECK-NEXT: %2 => contiguity = [1], divisibility = [32], constancy = [1], constant = 32, non_negative = true
func.func @branches(%b: i1, %n: index {tile.divisibility = array<i64: 8>}) {
  %c32 = arith.constant 32 : index
  %c12 = arith.constant 12 : index
  // Joins take what both sides promise.
  %x = scf.if %b -> index {
    scf.yield %c32 : index
  } else {
    scf.yield %n : index
  }
  %y = scf.if %b -> index {
    scf.yield %c32 : index
  } else {
    scf.yield %c12 : index
  }
  %z = scf.if %b -> index {
    scf.yield %c32 : index
  } else {
    scf.yield %c32 : index
  }
  return
}
