// RUN: phobos-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-assign-layout,tile-lower-to-gpu)'
// RUN: not phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-lower-to-gpu{chip=sm_60})' 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-lower-to-gpu{chip=gfx90a})' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-lower-to-gpu{features=+ptx70})' 2>&1 | FileCheck %s --check-prefix=PTX

// OLD: error: chip 'sm_60' is not supported: Phobos needs sm_70 or newer
// BAD: error: invalid chip 'gfx90a': expected sm_XX (for example sm_90)
// PTX: error: features '+ptx70' are too old for sm_90: it needs +ptx80 or higher

func.func @huge(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "K"]}, %B: memref<?x?xf32> {tile.name = "B", tile.dims = ["K", "N"]}, %C: memref<?x?xf32> {tile.name = "C", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<512x64xf32>
  %b = "tile.load_slice"(%B, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<64x512xf32>
  %z = arith.constant dense<0.0> : tensor<512x512xf32>
  // expected-error@+1 {{the kernel needs 270336 bytes of shared memory (lhs of the dot at}}
  %d = "tile.dot"(%a, %b, %z) : (tensor<512x64xf32>, tensor<64x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  "tile.store_slice"(%d, %C, %c0, %c0) : (tensor<512x512xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

func.func @anytrue(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x32xf32>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %p = arith.cmpf ogt, %a, %z : tensor<32x32xf32>
  // expected-error@+1 {{'tile.reduce' of i1 tiles is not supported: convert to an integer type first}}
  %s = "tile.reduce"(%p) {kind = "max", axis = 1 : i64} : (tensor<32x32xi1>) -> tensor<32xi1>
  return
}

// -----

func.func @transpose3(%A: memref<?x?x?xf32> {tile.name = "A", tile.dims = ["B", "M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0, %c0, %c0) : (memref<?x?x?xf32>, index, index, index) -> tensor<2x32x64xf32>
  // expected-error@+1 {{tile-lower-to-gpu lowers 'tile.transpose' only of 2-D tiles in a 2-D kernel layout}}
  %t = "tile.transpose"(%a) {permutation = array<i64: 0, 2, 1>} : (tensor<2x32x64xf32>) -> tensor<2x64x32xf32>
  "tile.store_slice"(%t, %A, %c0, %c0, %c0) : (tensor<2x64x32xf32>, memref<?x?x?xf32>, index, index, index) -> ()
  return
}

// -----

func.func @ragged(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'tile.load_slice' op uses the tile shape [3, 128]; tile-lower-to-gpu needs power-of-two extents}}
  %a = "tile.load_slice"(%A, %c0, %c0) : (memref<?x?xf32>, index, index) -> tensor<3x128xf32>
  return
}

// -----

func.func @rank4(%A: memref<?x?x?x?xf32> {tile.name = "A", tile.dims = ["N", "C", "H", "W"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'tile.load_slice' op uses a rank-4 tile (tensor<2x2x4x32xf32>); tile-lower-to-gpu supports tiles of rank 1 to 3}}
  %a = "tile.load_slice"(%A, %c0, %c0, %c0, %c0) : (memref<?x?x?x?xf32>, index, index, index, index) -> tensor<2x2x4x32xf32>
  return
}

// -----

// expected-error@+1 {{tensor parameter 'A' has element type i16; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2}}
func.func @i16(%A: memref<?xi16> {tile.name = "A", tile.dims = ["N"]}) attributes {tile.kernel} {
  return
}

// -----

// fp8 is for storage and conversion (dialect/fp8.py); tile-verify refuses this first, the lowering too.
func.func @fp8_arithmetic(%A: memref<?xf8E4M3FN> {tile.name = "A", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0) : (memref<?xf8E4M3FN>, index) -> tensor<256xf8E4M3FN>
  // expected-error@+1 {{'arith.addf' op computes on f8E4M3FN values; fp8 types are for storage and conversion (convert with arith.extf to f32 first)}}
  %b = arith.addf %a, %a : tensor<256xf8E4M3FN>
  "tile.store_slice"(%b, %A, %c0) : (tensor<256xf8E4M3FN>, memref<?xf8E4M3FN>, index) -> ()
  return
}

// -----

func.func @fp8_from_f64(%A: memref<?xf8E4M3FN> {tile.name = "A", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = arith.constant dense<1.0> : tensor<256xf64>
  // expected-error@+1 {{'arith.truncf' op converts between f8E4M3FN and f64; fp8 converts to f16, bf16, f32 and f64 and from f16, bf16 and f32 (convert through f32)}}
  %a = arith.truncf %x : tensor<256xf64> to tensor<256xf8E4M3FN>
  "tile.store_slice"(%a, %A, %c0) : (tensor<256xf8E4M3FN>, memref<?xf8E4M3FN>, index) -> ()
  return
}

// -----

func.func @extract(%A: memref<?xf32> {tile.name = "A", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0) : (memref<?xf32>, index) -> tensor<128xf32>
  // expected-error@+1 {{'tensor.extract' op reads one element of a tile of [128]; tile-lower-to-gpu reads single elements of slices with every extent 1 (A[i, j])}}
  %e = tensor.extract %a[%c0] : tensor<128xf32>
  return
}

// -----

// One 1-D range used both as rows and as columns needs a tile.convert_layout,
// which tile-convert-layouts inserts (tile-convert-layouts.mlir); lowered
// without that pass, the conflict is an error that names the pass.
func.func @rows_and_cols(%A: memref<?x?xi32> {tile.name = "A", tile.dims = ["N", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %r = "tile.range"() {start = 0 : i64, end = 32 : i64} : () -> tensor<32xi32>
  %rows = tensor.expand_shape %r [[0, 1]] output_shape [32, 1] : tensor<32xi32> into tensor<32x1xi32>
  // expected-error@+1 {{this tile would be needed in two layouts (its dimensions placed as [0] and as [1]) and no tile.convert_layout moves it (tile-convert-layouts inserts them)}}
  %cols = tensor.expand_shape %r [[0, 1]] output_shape [1, 32] : tensor<32xi32> into tensor<1x32xi32>
  %a = "tile.broadcast"(%rows) : (tensor<32x1xi32>) -> tensor<32x32xi32>
  %b = "tile.broadcast"(%cols) : (tensor<1x32xi32>) -> tensor<32x32xi32>
  %s = arith.addi %a, %b : tensor<32x32xi32>
  "tile.store_slice"(%s, %A, %c0, %c0) : (tensor<32x32xi32>, memref<?x?xi32>, index, index) -> ()
  return
}

// -----

func.func @table(%A: memref<?xi32> {tile.name = "A", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'arith.constant' op: non-splat tile constants are not supported by tile-lower-to-gpu yet}}
  %t = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  "tile.store_slice"(%t, %A, %c0) : (tensor<4xi32>, memref<?xi32>, index) -> ()
  return
}

// -----

func.func @not_persistent(%A: memref<?xi32> {tile.name = "A", tile.dims = ["N"]}) attributes {tile.kernel} {
  // expected-error@+1 {{tile.grid_barrier needs a tile.persistent kernel (@persistent)}}
  "tile.grid_barrier"() : () -> ()
  return
}

