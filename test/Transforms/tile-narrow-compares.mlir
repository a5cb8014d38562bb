// tile-narrow-compares: `arange(n) + a <pred> b` on index tiles becomes a
// 32-bit compare of the range with clamp(b - a, start - 1, end), where a and
// b are known non-negative; other compares are left as they are.
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-narrow-compares)' | FileCheck %s

// A block's columns against the extent (block id x 64 + arange(64) < N).
// CHECK-LABEL: func.func @block_mask
// CHECK: %[[LIM:.*]] = arith.subi %[[DIM:.*]], %[[START:.*]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[LIM]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK: %[[N32:.*]] = arith.index_cast %[[HI]] : index to i32
// CHECK: %[[B:.*]] = tensor.splat %[[N32]] : tensor<64xi32>
// CHECK: arith.cmpi slt, %{{.*}}, %[[B]] : tensor<64xi32>
// CHECK-NOT: tensor<64xindex>
func.func @block_mask(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]}) attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %X, %c0 : memref<?xf32>
  %b = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c64 = arith.constant 64 : index
  %start = arith.muli %b, %c64 : index
  %x = "tile.load_slice"(%X, %start) : (memref<?xf32>, index) -> tensor<64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64xf32>
  %r = "tile.range"() {end = 64 : i64, start = 0 : i64} : () -> tensor<64xi32>
  %ri = arith.index_cast %r : tensor<64xi32> to tensor<64xindex>
  %s = tensor.splat %start : tensor<64xindex>
  %pos = arith.addi %ri, %s : tensor<64xindex>
  %n = tensor.splat %dim : tensor<64xindex>
  %m = arith.cmpi slt, %pos, %n : tensor<64xindex>
  %y = arith.select %m, %x, %zero : tensor<64xi1>, tensor<64xf32>
  "tile.store_slice"(%y, %Y, %start) : (tensor<64xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// A loop variable from 0 (the keys of a flash-attention step), the sum written
// the other way round, and an unsigned predicate (the same for non-negative sides).
// CHECK-LABEL: func.func @loop_mask
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[DIM:.*]] step
// CHECK: arith.subi %[[DIM]], %[[J]] : index
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : tensor<32xi32>
func.func @loop_mask(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]}) attributes {tile.kernel, tile.launch = {threads = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %dim = memref.dim %X, %c0 : memref<?xf32>
  scf.for %j = %c0 to %dim step %c32 {
    %x = "tile.load_slice"(%X, %j) : (memref<?xf32>, index) -> tensor<32xf32>
    %zero = arith.constant dense<0.000000e+00> : tensor<32xf32>
    %r = "tile.range"() {end = 32 : i64, start = 0 : i64} : () -> tensor<32xi32>
    %ri = arith.index_cast %r : tensor<32xi32> to tensor<32xindex>
    %s = tensor.splat %j : tensor<32xindex>
    %pos = arith.addi %s, %ri : tensor<32xindex>
    %n = tensor.splat %dim : tensor<32xindex>
    %m = arith.cmpi uge, %pos, %n : tensor<32xindex>
    %y = arith.select %m, %zero, %x : tensor<32xi1>, tensor<32xf32>
    "tile.store_slice"(%y, %Y, %j) : (tensor<32xf32>, memref<?xf32>, index) -> ()
  }
  return
}

// -----

// An offset the pass cannot prove non-negative (an index argument), and an
// equality: both stay 64-bit.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: arith.subi
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<16xindex>
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : tensor<16xindex>
func.func @kept(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %Y: memref<?xi1> {tile.name = "Y", tile.dims = ["N"]}, %off: index {tile.name = "off"}) attributes {tile.kernel, tile.launch = {threads = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %dim = memref.dim %X, %c0 : memref<?xf32>
  %r = "tile.range"() {end = 16 : i64, start = 0 : i64} : () -> tensor<16xi32>
  %ri = arith.index_cast %r : tensor<16xi32> to tensor<16xindex>
  %s = tensor.splat %off : tensor<16xindex>
  %pos = arith.addi %ri, %s : tensor<16xindex>
  %n = tensor.splat %dim : tensor<16xindex>
  %m = arith.cmpi slt, %pos, %n : tensor<16xindex>
  %c = "tile.range"() {end = 16 : i64, start = 0 : i64} : () -> tensor<16xi32>
  %ci = arith.index_cast %c : tensor<16xi32> to tensor<16xindex>
  %z = tensor.splat %c0 : tensor<16xindex>
  %cpos = arith.addi %ci, %z : tensor<16xindex>
  %e = arith.cmpi eq, %cpos, %n : tensor<16xindex>
  %both = arith.andi %m, %e : tensor<16xi1>
  "tile.store_slice"(%both, %Y, %c0) : (tensor<16xi1>, memref<?xi1>, index) -> ()
  return
}
