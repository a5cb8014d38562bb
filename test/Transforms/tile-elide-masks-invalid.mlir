// Shapes and hints tile-verify refuses, given to the tile passes alone (no
// tile-verify before them): each pass reports the verifier's located error
// and stops, instead of failing inside its analysis.
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-elide-masks
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-assign-layout
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-test-print-axis-info
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-specialize{key=X=a16.e16x16.s16})'

func.func @few_starts(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects 2 start indices (one per dimension of the base), got 1}}
  %x = "tile.load_slice"(%X, %c0) : (memref<?x?xf32>, index) -> tensor<32x128xf32>
  return
}

// -----

func.func @dot(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%X, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x16xf32>
  // expected-error @below {{'tile.dot' op expects lhs columns to equal rhs rows, got [32, 16] x [32, 16]}}
  %d = "tile.dot"(%a, %a, %a) : (tensor<32x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  return
}

// -----

func.func @hint(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %r = "tile.range"() {start = 0 : i64, end = 128 : i64} : () -> tensor<128xi32>
  // expected-error @below {{'tile.hint' op expects divisibility to be an array<i64>, got [16]}}
  %h = "tile.hint"(%r) {divisibility = [16]} : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @in_bounds(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects in_bounds to be an array<i1> with 2 entries, got array<i1: true>}}
  %x = "tile.load_slice"(%X, %c0, %c0) {in_bounds = array<i1: true>} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  return
}

// -----

func.func @offsets(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %o = arith.constant dense<0.0> : tensor<128xf32>
  // expected-error @below {{'tile.load' op expects integer or index offsets, got f32}}
  %x = "tile.load"(%X, %o) {operandSegmentSizes = array<i32: 1, 1, 0>} : (memref<?xf32>, tensor<128xf32>) -> tensor<128xf32>
  return
}
