// Axis info through arith: each rule on the cases that matter for index
// expressions, including the signed div/rem cases that broke Triton.
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-test-print-axis-info)' 2>&1 | FileCheck %s

// CHECK-LABEL: axis-info @add_sub:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
func.func @add_sub(%n: i32 {tile.divisibility = array<i64: 16>}) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [4], constancy = [16], constant = 4, non_negative = true
  %c4 = arith.constant dense<4> : tensor<16xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %ns = tensor.splat %n : tensor<16xi32>
  // constant + run = run; its first element is n + 0.
  // CHECK-NEXT: %1 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = false
  %a = arith.addi %ns, %r : tensor<16xi32>
  // CHECK-NEXT: %2 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %b = arith.addi %r, %c4 : tensor<16xi32>
  // run + run is no run (0, 2, 4, ...).
  // CHECK-NEXT: %3 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %c = arith.addi %r, %r : tensor<16xi32>
  // CHECK-NEXT: %4 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = false
  %d = arith.subi %a, %c4 : tensor<16xi32>
  // constant - run decreases: no run.
  // CHECK-NEXT: %5 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = false
  %e = arith.subi %c4, %r : tensor<16xi32>
  // x - x = 0.
  // CHECK-NEXT: %6 => contiguity = [1], divisibility = [4611686018427387904], constancy = [16], constant = 0, non_negative = true
  %f = arith.subi %r, %r : tensor<16xi32>
  // CHECK-NEXT: %7 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
  %g = arith.addi %n, %n : i32
  return
}
// CHECK-LABEL: axis-info @mul:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = false
func.func @mul(%n: i32 {tile.divisibility = array<i64: 4>}) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [1], constancy = [16], constant = 1, non_negative = true
  %c1 = arith.constant dense<1> : tensor<16xi32>
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [4], constancy = [16], constant = 12, non_negative = true
  %c12 = arith.constant dense<12> : tensor<16xi32>
  // CHECK-NEXT: %cst_1 => contiguity = [1], divisibility = [4611686018427387904], constancy = [16], constant = 0, non_negative = true
  %c0 = arith.constant dense<0> : tensor<16xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [4], constancy = [16], constant = none, non_negative = false
  %ns = tensor.splat %n : tensor<16xi32>
  // x * 1 = x; x * 12 keeps the factor 4 of 12; n * 0 = 0.
  // CHECK-NEXT: %1 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %a = arith.muli %r, %c1 : tensor<16xi32>
  // CHECK-NEXT: %2 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %b = arith.muli %r, %c12 : tensor<16xi32>
  // CHECK-NEXT: %3 => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %c = arith.muli %ns, %c12 : tensor<16xi32>
  // CHECK-NEXT: %4 => contiguity = [1], divisibility = [4611686018427387904], constancy = [16], constant = 0, non_negative = true
  %d = arith.muli %ns, %c0 : tensor<16xi32>
  return
}
// CHECK-LABEL: axis-info @div:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
func.func @div(%n: i32 {tile.divisibility = array<i64: 16>}) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [4], constancy = [16], constant = 4, non_negative = true
  %c4 = arith.constant dense<4> : tensor<16xi32>
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [4], constancy = [16], constant = -4, non_negative = false
  %cm4 = arith.constant dense<-4> : tensor<16xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %ns = tensor.splat %n : tensor<16xi32>
  // A non-negative run over 4 gives groups of 4 equal quotients...
  // CHECK-NEXT: %1 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = true
  %a = arith.divsi %r, %c4 : tensor<16xi32>
  // CHECK-NEXT: %2 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = false
  %neg = arith.addi %r, %cm4 : tensor<16xi32>
  // ...but not a run through negatives: -4..-1 / 4 = -1, 0, 0, 0.
  // CHECK-NEXT: %3 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = false
  %b = arith.divsi %neg, %c4 : tensor<16xi32>
  // An exact division by 4 of a multiple of 16.
  // CHECK-NEXT: %4 => contiguity = [1], divisibility = [4], constancy = [16], constant = none, non_negative = false
  %c = arith.divsi %ns, %c4 : tensor<16xi32>
  // CHECK-NEXT: %5 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = true
  %d = arith.divui %r, %c4 : tensor<16xi32>
  // divui by 4 is a logical shift, which floors: groups of 4 again.
  // CHECK-NEXT: %6 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = true
  %e = arith.divui %neg, %c4 : tensor<16xi32>
  // 0..15 / n, n a multiple of 16: one quotient.
  // CHECK-NEXT: %7 => contiguity = [1], divisibility = [1], constancy = [16], constant = none, non_negative = false
  %f = arith.divsi %r, %ns : tensor<16xi32>
  return
}
// CHECK-LABEL: axis-info @rem:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
func.func @rem(%n: i32 {tile.divisibility = array<i64: 16>}) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [4], constancy = [16], constant = 4, non_negative = true
  %c4 = arith.constant dense<4> : tensor<16xi32>
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [2], constancy = [16], constant = 6, non_negative = true
  %c6 = arith.constant dense<6> : tensor<16xi32>
  // CHECK-NEXT: %cst_1 => contiguity = [1], divisibility = [4], constancy = [16], constant = -4, non_negative = false
  %cm4 = arith.constant dense<-4> : tensor<16xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %ns = tensor.splat %n : tensor<16xi32>
  // A non-negative run modulo 4: runs of 4 from 0.
  // CHECK-NEXT: %1 => contiguity = [4], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %a = arith.remsi %r, %c4 : tensor<16xi32>
  // Modulo 6: runs of 2 (the power of two in 6) stay runs.
  // CHECK-NEXT: %2 => contiguity = [2], divisibility = [2], constancy = [1], constant = none, non_negative = true
  %b = arith.remsi %r, %c6 : tensor<16xi32>
  // CHECK-NEXT: %3 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
  %c = arith.remsi %r, %ns : tensor<16xi32>
  // CHECK-NEXT: %4 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = false
  %neg = arith.addi %r, %cm4 : tensor<16xi32>
  // Negative dividends: -4..-1 % 4 = 0, -3, -2, -1; no run, no divisibility.
  // CHECK-NEXT: %5 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = false
  %d = arith.remsi %neg, %c4 : tensor<16xi32>
  // remui by 4 takes the low bits: runs of 4 from 0 again.
  // CHECK-NEXT: %6 => contiguity = [4], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %e = arith.remui %neg, %c4 : tensor<16xi32>
  // CHECK-NEXT: %cst_2 => contiguity = [1], divisibility = [4], constancy = [4], constant = none, non_negative = true
  %parts = arith.constant dense<[4, 4, 4, 4, 8, 8, 8, 8, 4, 4, 4, 4, 8, 8, 8, 8]> : tensor<16xi32>
  // triton issue 11544: a divisor constant only over groups of 4; the
  // divisibility is claimed for the first element of each run only.
  // CHECK-NEXT: %7 => contiguity = [4], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %f = arith.remsi %r, %parts : tensor<16xi32>
  // CHECK-NEXT: %8 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %g = arith.remsi %r, %r : tensor<16xi32>
  return
}
// CHECK-LABEL: axis-info @shifts:
func.func @shifts() {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [2], constancy = [16], constant = 2, non_negative = true
  %c2 = arith.constant dense<2> : tensor<16xi32>
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [4], constancy = [16], constant = -4, non_negative = false
  %cm4 = arith.constant dense<-4> : tensor<16xi32>
  // CHECK-NEXT: %1 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %a = arith.shli %r, %c2 : tensor<16xi32>
  // Shifts right floor, also for negatives: groups of 4 equal values.
  // CHECK-NEXT: %2 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = true
  %b = arith.shrsi %r, %c2 : tensor<16xi32>
  // CHECK-NEXT: %3 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = false
  %neg = arith.addi %r, %cm4 : tensor<16xi32>
  // CHECK-NEXT: %4 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = false
  %c = arith.shrsi %neg, %c2 : tensor<16xi32>
  // CHECK-NEXT: %5 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = true
  %d = arith.shrui %neg, %c2 : tensor<16xi32>
  // CHECK-NEXT: %6 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %e = arith.shli %r, %r : tensor<16xi32>
  return
}
// CHECK-LABEL: axis-info @bitwise_min_max:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
func.func @bitwise_min_max(%n: i32 {tile.divisibility = array<i64: 16>}) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [1], constancy = [16], constant = 7, non_negative = true
  %c7 = arith.constant dense<7> : tensor<16xi32>
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [8], constancy = [16], constant = -8, non_negative = false
  %cm8 = arith.constant dense<-8> : tensor<16xi32>
  // CHECK-NEXT: %cst_1 => contiguity = [1], divisibility = [32], constancy = [16], constant = 32, non_negative = true
  %c32 = arith.constant dense<32> : tensor<16xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %ns = tensor.splat %n : tensor<16xi32>
  // & 7 is x mod 8; & -8 rounds down to a multiple of 8.
  // CHECK-NEXT: %1 => contiguity = [8], divisibility = [8], constancy = [1], constant = none, non_negative = true
  %a = arith.andi %r, %c7 : tensor<16xi32>
  // CHECK-NEXT: %2 => contiguity = [1], divisibility = [8], constancy = [8], constant = none, non_negative = true
  %b = arith.andi %r, %cm8 : tensor<16xi32>
  // CHECK-NEXT: %3 => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %c = arith.ori %ns, %c32 : tensor<16xi32>
  // CHECK-NEXT: %4 => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %d = arith.xori %ns, %c32 : tensor<16xi32>
  // CHECK-NEXT: %5 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = false
  %r16 = arith.addi %r, %ns : tensor<16xi32>
  // The max of two runs over the same groups is a run.
  // CHECK-NEXT: %6 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
  %e = arith.maxsi %r, %r16 : tensor<16xi32>
  // CHECK-NEXT: %7 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %f = arith.minsi %r, %c7 : tensor<16xi32>
  // Unsigned too, where no run wraps around (first elements divisible by 16).
  // CHECK-NEXT: %8 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
  %g = arith.minui %r, %r16 : tensor<16xi32>
  return
}
// CHECK-LABEL: axis-info @compare:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = false
func.func @compare(%n: i32 {tile.divisibility = array<i64: 4>}) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [4], constancy = [16], constant = none, non_negative = false
  %ns = tensor.splat %n : tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [8], constancy = [16], constant = 8, non_negative = true
  %c8 = arith.constant dense<8> : tensor<16xi32>
  // run < n flips at a multiple of 4: the mask is constant over groups of 4...
  // CHECK-NEXT: %1 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = true
  %a = arith.cmpi slt, %r, %ns : tensor<16xi32>
  // ...run <= n flips one later: no groups.
  // CHECK-NEXT: %2 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %b = arith.cmpi sle, %r, %ns : tensor<16xi32>
  // CHECK-NEXT: %3 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = true
  %c = arith.cmpi sgt, %ns, %r : tensor<16xi32>
  // CHECK-NEXT: %4 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %d = arith.cmpi eq, %r, %c8 : tensor<16xi32>
  // CHECK-NEXT: %5 => contiguity = [16], divisibility = [8], constancy = [1], constant = none, non_negative = true
  %r8 = arith.addi %r, %c8 : tensor<16xi32>
  // Two runs over the same groups differ by a constant there.
  // CHECK-NEXT: %6 => contiguity = [1], divisibility = [1], constancy = [16], constant = none, non_negative = true
  %e = arith.cmpi ne, %r, %r8 : tensor<16xi32>
  // CHECK-NEXT: %7 => contiguity = [1], divisibility = [1], constancy = [8], constant = none, non_negative = true
  %f = arith.cmpi ult, %r, %c8 : tensor<16xi32>
  // CHECK-NEXT: %8 => contiguity = [1], divisibility = [1], constancy = [1], constant = 1, non_negative = true
  %g = arith.cmpi sge, %n, %n : i32
  return
}
// CHECK-LABEL: axis-info @select:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
// CHECK-NEXT: %arg1 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = false
func.func @select(%n: i32 {tile.divisibility = array<i64: 16>}, %b: i1) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %ns = tensor.splat %n : tensor<16xi32>
  // CHECK-NEXT: %1 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = false
  %r16 = arith.addi %r, %ns : tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [8], constancy = [16], constant = 8, non_negative = true
  %c8 = arith.constant dense<8> : tensor<16xi32>
  // CHECK-NEXT: %2 => contiguity = [1], divisibility = [1], constancy = [8], constant = none, non_negative = true
  %m = arith.cmpi slt, %r, %c8 : tensor<16xi32>
  // A scalar condition takes one whole side.
  // CHECK-NEXT: %3 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = false
  %a = arith.select %b, %r, %r16 : tensor<16xi32>
  // A tile condition constant over groups of 8 keeps runs of 8.
  // CHECK-NEXT: %4 => contiguity = [8], divisibility = [8], constancy = [1], constant = none, non_negative = false
  %s = arith.select %m, %r, %r16 : tensor<16xi1>, tensor<16xi32>
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [4611686018427387904], constancy = [16], constant = 0, non_negative = true
  %c0 = arith.constant dense<0> : tensor<16xi32>
  // CHECK-NEXT: %5 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %z = arith.select %b, %r, %c0 : tensor<16xi32>
  // CHECK-NEXT: %true => contiguity = [1], divisibility = [1], constancy = [1], constant = 1, non_negative = true
  %t = arith.constant true
  // CHECK-NEXT: %6 => contiguity = [1], divisibility = [16], constancy = [16], constant = none, non_negative = false
  %k = arith.select %t, %ns, %r : tensor<16xi32>
  return
}
// CHECK-LABEL: axis-info @casts:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
func.func @casts(%n: i32 {tile.divisibility = array<i64: 16>}) {
  // CHECK-NEXT: %0 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 16 : i64} : () -> tensor<16xi32>
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [4], constancy = [16], constant = -4, non_negative = false
  %cm4 = arith.constant dense<-4> : tensor<16xi32>
  // CHECK-NEXT: %1 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = false
  %neg = arith.addi %r, %cm4 : tensor<16xi32>
  // CHECK-NEXT: %2 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = false
  %a = arith.extsi %neg : tensor<16xi32> to tensor<16xi64>
  // Zero extension moves negatives up by 2^32: only runs that do not cross 0 stay.
  // CHECK-NEXT: %3 => contiguity = [4], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %b = arith.extui %neg : tensor<16xi32> to tensor<16xi64>
  // CHECK-NEXT: %4 => contiguity = [16], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %c = arith.extui %r : tensor<16xi32> to tensor<16xi64>
  // Narrowing casts are assumed to keep the value (no overflow).
  // CHECK-NEXT: %5 => contiguity = [16], divisibility = [4], constancy = [1], constant = none, non_negative = false
  %d = arith.trunci %a : tensor<16xi64> to tensor<16xi16>
  // CHECK-NEXT: %6 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
  %e = arith.index_cast %n : i32 to index
  // CHECK-NEXT: %7 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = true
  %f = arith.index_castui %n : i32 to index
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [8], constancy = [16], constant = 8, non_negative = true
  %c8 = arith.constant dense<8> : tensor<16xi32>
  // CHECK-NEXT: %8 => contiguity = [1], divisibility = [1], constancy = [8], constant = none, non_negative = true
  %m = arith.cmpi slt, %r, %c8 : tensor<16xi32>
  // CHECK-NEXT: %9 => contiguity = [1], divisibility = [1], constancy = [8], constant = none, non_negative = true
  %g = arith.extui %m : tensor<16xi1> to tensor<16xi32>
  // i1 true sign-extends to -1.
  // CHECK-NEXT: %10 => contiguity = [1], divisibility = [1], constancy = [8], constant = none, non_negative = false
  %h = arith.extsi %m : tensor<16xi1> to tensor<16xi32>
  return
}

