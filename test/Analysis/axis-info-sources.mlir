// Axis info of the values that start index expressions: ranges, constants,
// grid ids, kernel arguments, tensor extents and hints.
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-test-print-axis-info)' 2>&1 | FileCheck %s

// CHECK-LABEL: axis-info @ranges:
func.func @ranges() {
  // A range is one run; its first element sets the divisibility (0: the largest).
  // CHECK-NEXT: %0 => contiguity = [128], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r0 = "tile.range"() {start = 0 : i64, end = 128 : i64} : () -> tensor<128xi32>
  // CHECK-NEXT: %1 => contiguity = [64], divisibility = [64], constancy = [1], constant = none, non_negative = true
  %r64 = "tile.range"() {start = 64 : i64, end = 128 : i64} : () -> tensor<64xi32>
  // CHECK-NEXT: %2 => contiguity = [8], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %r4 = "tile.range"() {start = 4 : i64, end = 12 : i64} : () -> tensor<8xindex>
  // Groups are whole: an extent of 96 holds runs of 32 (starting at 0, 32, 64).
  // CHECK-NEXT: %3 => contiguity = [32], divisibility = [32], constancy = [1], constant = none, non_negative = true
  %r96 = "tile.range"() {start = 0 : i64, end = 96 : i64} : () -> tensor<96xi32>
  // A range of one element is a constant.
  // CHECK-NEXT: %4 => contiguity = [1], divisibility = [4], constancy = [1], constant = 12, non_negative = true
  %r1 = "tile.range"() {start = 12 : i64, end = 13 : i64} : () -> tensor<1xi32>
  return
}

// CHECK-LABEL: axis-info @constants:
func.func @constants() {
  // CHECK-NEXT: %c48 => contiguity = [1], divisibility = [16], constancy = [1], constant = 48, non_negative = true
  %c48 = arith.constant 48 : index
  // CHECK-NEXT: %c-8_i32 => contiguity = [1], divisibility = [8], constancy = [1], constant = -8, non_negative = false
  %cm8 = arith.constant -8 : i32
  // CHECK-NEXT: %c0_i64 => contiguity = [1], divisibility = [4611686018427387904], constancy = [1], constant = 0, non_negative = true
  %c0 = arith.constant 0 : i64
  // i1 values are 0 and 1.
  // CHECK-NEXT: %true => contiguity = [1], divisibility = [1], constancy = [1], constant = 1, non_negative = true
  %t = arith.constant true
  // A splat is constant along every dimension.
  // CHECK-NEXT: %cst => contiguity = [1, 1], divisibility = [4, 4], constancy = [4, 64], constant = 12, non_negative = true
  %s = arith.constant dense<12> : tensor<4x64xi32>
  // CHECK-NEXT: %cst_0 => contiguity = [1], divisibility = [1], constancy = [16], constant = 1, non_negative = true
  %m = arith.constant dense<true> : tensor<16xi1>
  // Other dense constants get their exact facts.
  // CHECK-NEXT: %cst_1 => contiguity = [4], divisibility = [8], constancy = [1], constant = none, non_negative = true
  %d = arith.constant dense<[8, 9, 10, 11, 16, 17, 18, 19]> : tensor<8xi32>
  // CHECK-NEXT: %cst_2 => contiguity = [1, 1], divisibility = [2, 2], constancy = [1, 2], constant = none, non_negative = false
  %e = arith.constant dense<[[2, 2, 4, 4], [-6, -6, 8, 8]]> : tensor<2x4xi32>
  return
}

// CHECK-LABEL: axis-info @grid:
func.func @grid() attributes {tile.kernel} {
  // Grid ids are unknown, but never negative.
  // CHECK-NEXT: %0 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  // CHECK-NEXT: %1 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = true
  %n = "tile.grid_dim"() {dim = 1 : i64} : () -> index
  return
}

// Integer parameters: specialisation (tile.divisibility) or nothing.
// CHECK-LABEL: axis-info @scalar_arguments:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
// CHECK-NEXT: %arg1 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = false
// CHECK-NEXT: %arg2 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = false
func.func @scalar_arguments(%n: i32 {tile.name = "n", tile.divisibility = array<i64: 16>}, %k: i64 {tile.name = "k"},
                            %i: index {tile.divisibility = array<i64: 4>}) attributes {tile.kernel} {
  return
}

// Extents: static shapes, @aligned promises (by symbol, in every parameter
// that names it), entry checks and specialisation.
// CHECK-LABEL: axis-info @extents:
func.func @extents(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "K"]},
                   %B: memref<?x24xf32> {tile.name = "B", tile.dims = ["K", "N"], tile.divisibility = array<i64: 4, 1>},
                   %C: memref<?x?xf16> {tile.name = "C", tile.dims = ["M", "P"], tile.divisibility = array<i64: 1, 16>})
    attributes {tile.kernel, tile.aligned = {M = 96 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // M: @aligned(M = 96) gives the power of two in 96.
  // CHECK: %dim => contiguity = [1], divisibility = [32], constancy = [1], constant = none, non_negative = true
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  // CHECK-NEXT: %0 => contiguity = [1], divisibility = [32], constancy = [1], constant = none, non_negative = true
  %mc = "tile.check_multiple"(%m) {divisor = 96 : i64, symbol = "M"} : (index) -> index
  // K: B is specialised to a multiple of 4 along K, and A shares the symbol.
  // CHECK-NEXT: %dim_0 => contiguity = [1], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %k = memref.dim %A, %c1 : memref<?x?xf32>
  // N: a static extent is a constant.
  // CHECK-NEXT: %dim_1 => contiguity = [1], divisibility = [8], constancy = [1], constant = 24, non_negative = true
  %n = memref.dim %B, %c1 : memref<?x24xf32>
  // P: specialised to 16, and checked at entry to be a multiple of 64 (an
  // entry check, like a promise, is about the symbol).
  // CHECK-NEXT: %dim_2 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
  %p = memref.dim %C, %c1 : memref<?x?xf16>
  // CHECK-NEXT: %1 => contiguity = [1], divisibility = [64], constancy = [1], constant = none, non_negative = true
  %pc = "tile.check_multiple"(%p) {divisor = 64 : i64, symbol = "P"} : (index) -> index
  return
}

// Hints replace what was computed; a contiguity hint alone keeps only what
// the computed divisibility says about the first element of each new run.
// CHECK-LABEL: axis-info @hints:
func.func @hints(%n: i32) {
  // CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [1]
  // CHECK-NEXT: %0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
  %h = "tile.hint"(%n) {divisibility = array<i64: 16>} : (i32) -> i32
  %r = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  // CHECK-NEXT: %1 => contiguity = [64], divisibility = [4611686018427387904]
  // CHECK-NEXT: %2 => contiguity = [4], divisibility = [4], constancy = [1], constant = none, non_negative = true
  %c4 = "tile.hint"(%r) {contiguity = array<i64: 4>} : (tensor<64xi32>) -> tensor<64xi32>
  // CHECK-NEXT: %3 => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
  %all = "tile.hint"(%r) {contiguity = array<i64: 16>, divisibility = array<i64: 16>} : (tensor<64xi32>) -> tensor<64xi32>
  // CHECK-NEXT: %splat => contiguity = [1], divisibility = [1], constancy = [64], constant = none, non_negative = false
  // CHECK-NEXT: %4 => contiguity = [1], divisibility = [8], constancy = [8], constant = none, non_negative = false
  %s = tensor.splat %n : tensor<64xi32>
  %k = "tile.hint"(%s) {constancy = array<i64: 8>, divisibility = array<i64: 8>} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// Loaded integers are unknown, except that one address (and one mask bit)
// over a group reads one value there.
// CHECK-LABEL: axis-info @loads:
func.func @loads(%X: memref<?xi32> {tile.name = "X", tile.dims = ["N"]}, %i: i32) {
  // CHECK: %splat => contiguity = [1], divisibility = [1], constancy = [64], constant = none, non_negative = false
  %s = tensor.splat %i : tensor<64xi32>
  // CHECK-NEXT: %0 => contiguity = [1], divisibility = [1], constancy = [64], constant = none, non_negative = false
  %same = "tile.load"(%X, %s) : (memref<?xi32>, tensor<64xi32>) -> tensor<64xi32>
  %r = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  %c4 = arith.constant dense<4> : tensor<64xi32>
  %q = arith.divsi %r, %c4 : tensor<64xi32>
  %m = arith.cmpi slt, %r, %s : tensor<64xi32>
  // CHECK: %4 => contiguity = [1], divisibility = [1], constancy = [4], constant = none, non_negative = false
  %rows = "tile.load"(%X, %q) : (memref<?xi32>, tensor<64xi32>) -> tensor<64xi32>
  // CHECK-NEXT: %5 => contiguity = [1], divisibility = [1], constancy = [1], constant = none, non_negative = false
  %masked = "tile.load"(%X, %q, %m) : (memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  return
}
