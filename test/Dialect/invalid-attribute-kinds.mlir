// Attributes of the wrong kind on tile ops and kernels (found by the fuzzer:
// issue 30): IRDL checks only an attribute's base (`#builtin.dense_array`
// admits array<i1> and array<f32>), and the checks read every attribute through
// dialect/attributes.py, which names the attribute and the kind expected, at the
// op, instead of failing inside Python. Integers wider than 64 bits are refused
// before their value is read (reading one aborts the process).
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-verify
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-elide-masks

func.func @k(%t: tensor<2x4xf32>) {
  // expected-error @below {{'tile.transpose' op expects permutation to be an array<i64>, got array<f32: 1.000000e+00, 0.000000e+00>}}
  %0 = "tile.transpose"(%t) {permutation = array<f32: 1.0, 0.0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

// array<i1: true, false> once passed as the permutation [1, 0].
func.func @k(%t: tensor<2x4xf32>) {
  // expected-error @below {{'tile.transpose' op expects permutation to be an array<i64>, got array<i1: true, false>}}
  %0 = "tile.transpose"(%t) {permutation = array<i1: true, false>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @k(%t: tensor<2x4xf32>) {
  // expected-error @below {{'tile.transpose' op expects permutation to be an array<i64>, got array<i32: 1, 0>}}
  %0 = "tile.transpose"(%t) {permutation = array<i32: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects operandSegmentSizes to be an array<i32>, got array<i1: true>}}
  %0 = "tile.load_slice"(%X, %c0) {operandSegmentSizes = array<i1: true>} : (memref<?xf32>, index) -> tensor<4xf32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects operandSegmentSizes to give the 2 values to the groups base (single), starts (variadic), got [1, 2]}}
  %0 = "tile.load_slice"(%X, %c0) {operandSegmentSizes = array<i32: 1, 2>} : (memref<?xf32>, index) -> tensor<4xf32>
  return
}

// -----

// A well-formed operandSegmentSizes is accepted.
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %o: tensor<4xi32>) {
  %0 = "tile.load"(%X, %o) {operandSegmentSizes = array<i32: 1, 1, 0>} : (memref<?xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %o: tensor<4xi32>) {
  // expected-error @below {{'tile.store' op expects resultSegmentSizes to be an array<i32>, got array<f64: 0.000000e+00>}}
  "tile.store"(%o, %X, %o) {resultSegmentSizes = array<f64: 0.0>} : (tensor<4xi32>, memref<?xf32>, tensor<4xi32>) -> ()
  return
}

// -----

func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects in_bounds to be an array<i1> with 2 entries, got array<i64: 1, 1>}}
  %x = "tile.load_slice"(%X, %c0, %c0) {in_bounds = array<i64: 1, 1>} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %t: tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.store_slice' op expects in_bounds to be an array<i1> with 1 entries, got array<f32: 1.000000e+00>}}
  "tile.store_slice"(%t, %X, %c0) {in_bounds = array<f32: 1.0>} : (tensor<4xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

func.func @k(%t: tensor<64xi32>) {
  // expected-error @below {{'tile.hint' op expects contiguity to be an array<i64>, got array<f64: 4.000000e+00>}}
  %0 = "tile.hint"(%t) {contiguity = array<f64: 4.0>} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%t: tensor<64xi32>) {
  // expected-error @below {{'tile.hint' op expects constancy to be an array<i64>, got array<i1: true>}}
  %0 = "tile.hint"(%t) {constancy = array<i1: true>} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  // expected-error @below {{'tile.block_id' op expects dim to be an integer of at most 64 bits, got 99999999999999999999999 : i128}}
  %0 = "tile.block_id"() {dim = 99999999999999999999999 : i128} : () -> index
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  // expected-error @below {{'tile.range' op expects end to be an integer of at most 64 bits, got 36893488147419103232 : i128}}
  %0 = "tile.range"() {start = 0 : i64, end = 36893488147419103232 : i128} : () -> tensor<4xi32>
  return
}

// -----

func.func @k(%t: tensor<4x4xf32>) {
  // expected-error @below {{'tile.reduce' op expects axis to be an integer of at most 64 bits, got 36893488147419103232 : i128}}
  %0 = "tile.reduce"(%t) {kind = "sum", axis = 36893488147419103232 : i128} : (tensor<4x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects vector_width to be a positive power of two integer, got 36893488147419103232 : i80}}
  %x = "tile.load_slice"(%X, %c0) {vector_width = 36893488147419103232 : i80} : (memref<?xf32>, index) -> tensor<4xf32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %n: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.check_multiple' op expects divisor to be an integer of at most 64 bits, got 36893488147419103232 : i128}}
  %0 = "tile.check_multiple"(%n) {divisor = 36893488147419103232 : i128, symbol = "N"} : (index) -> index
  return
}

// -----

// expected-error @below {{'func.func' op has a malformed kernel attribute: 'tile.launch.threads' must be an integer of at most 64 bits, got 36893488147419103232 : i128}}
func.func @k() attributes {tile.kernel, tile.launch = {threads = 36893488147419103232 : i128}} {
  return
}

// -----

// expected-error @below {{'func.func' op has a malformed kernel attribute: 'tile.aligned.M' must be an integer of at most 64 bits, got 36893488147419103232 : i128}}
func.func @k() attributes {tile.kernel, tile.aligned = {M = 36893488147419103232 : i128}} {
  return
}

// -----

// expected-error @below {{malformed attribute on parameter 0: 'tile.ptr_align' must be an integer of at most 64 bits, got 36893488147419103232 : i128}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 36893488147419103232 : i128}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{malformed attribute on parameter 0: 'tile.divisibility' must be an array<i64>, got array<i32: 16>}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.divisibility = array<i32: 16>}) attributes {tile.kernel} {
  return
}
