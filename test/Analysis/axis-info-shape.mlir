// Axis info through shape ops: splat, broadcast, expand/collapse, transpose,
// and the 2-D offsets of an arange-style access, row * stride + column.
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-test-print-axis-info)' 2>&1 | FileCheck %s

// CHECK-LABEL: axis-info @offsets_2d:
// CHECK-NEXT: %arg0 => contiguity = [1], divisibility = [16], constancy = [1], constant = none, non_negative = false
func.func @offsets_2d(%stride: i32 {tile.divisibility = array<i64: 16>}) {
  // CHECK-NEXT: %0 => contiguity = [4], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %rows = "tile.range"() {start = 0 : i64, end = 4 : i64} : () -> tensor<4xi32>
  // A new unit dimension holds what is true of every element.
  // CHECK-NEXT: %expanded => contiguity = [4, 1], divisibility = [4611686018427387904, 1], constancy = [1, 1], constant = none, non_negative = true
  %r2 = tensor.expand_shape %rows [[0, 1]] output_shape [4, 1] : tensor<4xi32> into tensor<4x1xi32>
  // CHECK-NEXT: %splat => contiguity = [1, 1], divisibility = [16, 16], constancy = [4, 1], constant = none, non_negative = false
  %s = tensor.splat %stride : tensor<4x1xi32>
  // CHECK-NEXT: %1 => contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1], constant = none, non_negative = false
  %rs = arith.muli %r2, %s : tensor<4x1xi32>
  // Broadcast dimensions are constant.
  // CHECK-NEXT: %2 => contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 64], constant = none, non_negative = false
  %rb = "tile.broadcast"(%rs) : (tensor<4x1xi32>) -> tensor<4x64xi32>
  // CHECK-NEXT: %3 => contiguity = [64], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %cols = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  // CHECK-NEXT: %expanded_0 => contiguity = [1, 64], divisibility = [1, 4611686018427387904], constancy = [1, 1], constant = none, non_negative = true
  %c2 = tensor.expand_shape %cols [[0, 1]] output_shape [1, 64] : tensor<64xi32> into tensor<1x64xi32>
  // CHECK-NEXT: %4 => contiguity = [1, 64], divisibility = [1, 4611686018427387904], constancy = [4, 1], constant = none, non_negative = true
  %cb = "tile.broadcast"(%c2) : (tensor<1x64xi32>) -> tensor<4x64xi32>
  // Runs of 64 along the columns that start at multiples of 16 (the stride).
  // CHECK-NEXT: %5 => contiguity = [1, 64], divisibility = [1, 16], constancy = [1, 1], constant = none, non_negative = false
  %offs = arith.addi %rb, %cb : tensor<4x64xi32>
  return
}
// CHECK-LABEL: axis-info @reshapes:
func.func @reshapes() {
  // CHECK-NEXT: %0 => contiguity = [64], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %r = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  // Splitting a run: rows of 16 are runs, and walking down a column steps by 16.
  // CHECK-NEXT: %expanded => contiguity = [1, 16], divisibility = [1, 16], constancy = [1, 1], constant = none, non_negative = true
  %e = tensor.expand_shape %r [[0, 1]] output_shape [4, 16] : tensor<64xi32> into tensor<4x16xi32>
  // Merging back: the inner runs line up.
  // CHECK-NEXT: %collapsed => contiguity = [16], divisibility = [16], constancy = [1], constant = none, non_negative = true
  %c = tensor.collapse_shape %e [[0, 1]] : tensor<4x16xi32> into tensor<64xi32>
  // CHECK-NEXT: %1 => contiguity = [16, 1], divisibility = [16, 1], constancy = [1, 1], constant = none, non_negative = true
  %t = "tile.transpose"(%e) {permutation = array<i64: 1, 0>} : (tensor<4x16xi32>) -> tensor<16x4xi32>
  // A tile constant over whole rows merges into longer constant groups.
  // CHECK-NEXT: %2 => contiguity = [4], divisibility = [4611686018427387904], constancy = [1], constant = none, non_negative = true
  %rows = "tile.range"() {start = 0 : i64, end = 4 : i64} : () -> tensor<4xi32>
  // CHECK-NEXT: %expanded_0 => contiguity = [4, 1], divisibility = [4611686018427387904, 1], constancy = [1, 1], constant = none, non_negative = true
  %r2 = tensor.expand_shape %rows [[0, 1]] output_shape [4, 1] : tensor<4xi32> into tensor<4x1xi32>
  // CHECK-NEXT: %3 => contiguity = [4, 1], divisibility = [4611686018427387904, 1], constancy = [1, 8], constant = none, non_negative = true
  %rb = "tile.broadcast"(%r2) : (tensor<4x1xi32>) -> tensor<4x8xi32>
  // CHECK-NEXT: %collapsed_1 => contiguity = [1], divisibility = [1], constancy = [8], constant = none, non_negative = true
  %flat = tensor.collapse_shape %rb [[0, 1]] : tensor<4x8xi32> into tensor<32xi32>
  // Constant groups split across dimensions.
  // CHECK-NEXT: %cst => contiguity = [1], divisibility = [1], constancy = [8], constant = none, non_negative = true
  %k = arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5]> : tensor<16xi32>
  // CHECK-NEXT: %expanded_2 => contiguity = [1, 1], divisibility = [1, 1], constancy = [2, 4], constant = none, non_negative = true
  %k2 = tensor.expand_shape %k [[0, 1]] output_shape [4, 4] : tensor<16xi32> into tensor<4x4xi32>
  return
}

