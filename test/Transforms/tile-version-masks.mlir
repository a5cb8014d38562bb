// tile-version-masks: a select in a loop whose mask compares positions (a range
// plus a scalar) with a scalar becomes an scf.if on the extreme position: the
// then branch yields the selected value untouched, the else branch computes the
// mask and the select. Selects outside loops, and masks that are not bounds
// masks, are left as they are.
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-version-masks)' | FileCheck %s

// The keys of a flash-attention step after tile-narrow-compares: arange(32) < clamp(S - j);
// every position passes when the last one (31) does.
// CHECK-LABEL: func.func @narrowed
// CHECK: scf.for
// CHECK: %[[B:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[LAST:.*]] = arith.constant 31 : i32
// CHECK: %[[FULL:.*]] = arith.cmpi slt, %[[LAST]], %[[B]] : i32
// CHECK: %[[Y:.*]] = scf.if %[[FULL]] -> (tensor<32xf32>) {
// CHECK-NEXT: scf.yield %[[X:.*]] : tensor<32xf32>
// CHECK-NEXT: } else {
// CHECK: tile.range
// CHECK: %[[M:.*]] = arith.cmpi slt
// CHECK: %[[S:.*]] = arith.select %[[M]], %[[X]]
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: tile.store_slice"(%[[Y]]
func.func @narrowed(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]}) attributes {tile.kernel, tile.launch = {threads = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %dim = memref.dim %X, %c0 : memref<?xf32>
  scf.for %j = %c0 to %dim step %c32 {
    %x = "tile.load_slice"(%X, %j) : (memref<?xf32>, index) -> tensor<32xf32>
    %zero = arith.constant dense<0.000000e+00> : tensor<32xf32>
    %left = arith.subi %dim, %j : index
    %b32 = arith.index_cast %left : index to i32
    %r = "tile.range"() {end = 32 : i64, start = 0 : i64} : () -> tensor<32xi32>
    %n = tensor.splat %b32 : tensor<32xi32>
    %m = arith.cmpi slt, %r, %n : tensor<32xi32>
    %y = arith.select %m, %x, %zero : tensor<32xi1>, tensor<32xf32>
    "tile.store_slice"(%y, %Y, %j) : (tensor<32xf32>, memref<?xf32>, index) -> ()
  }
  return
}

// -----

// Positions as index_cast(range) + splat(j), the bound on the left (N > positions), broadcast
// to 2-D and and-ed with a second bound: the test is the conjunction of both extremes.
// CHECK-LABEL: func.func @two_bounds
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[HI:.*]] = arith.constant 15 : index
// CHECK: %[[P:.*]] = arith.addi %[[HI]], %[[J]] : index
// CHECK: %[[T1:.*]] = arith.cmpi slt, %[[P]], %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK: %[[T2:.*]] = arith.cmpi sge, %[[LO]], %{{.*}} : index
// CHECK: %[[T:.*]] = arith.andi %[[T1]], %[[T2]] : i1
// CHECK: scf.if %[[T]] -> (tensor<4x16xf32>)
// CHECK: arith.andi %{{.*}} : tensor<16xi1>
// CHECK: tile.broadcast
// CHECK: arith.select
func.func @two_bounds(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}, %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}, %lo: index) attributes {tile.kernel, tile.launch = {threads = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %dim = memref.dim %X, %c1 : memref<?x?xf32>
  scf.for %j = %c0 to %dim step %c16 {
    %x = "tile.load_slice"(%X, %c0, %j) : (memref<?x?xf32>, index, index) -> tensor<4x16xf32>
    %zero = arith.constant dense<0.000000e+00> : tensor<4x16xf32>
    %r = "tile.range"() {end = 16 : i64, start = 0 : i64} : () -> tensor<16xi32>
    %ri = arith.index_cast %r : tensor<16xi32> to tensor<16xindex>
    %s = tensor.splat %j : tensor<16xindex>
    %pos = arith.addi %s, %ri : tensor<16xindex>
    %n = tensor.splat %dim : tensor<16xindex>
    %m = arith.cmpi sgt, %n, %pos : tensor<16xindex>
    %r2 = "tile.range"() {end = 16 : i64, start = 0 : i64} : () -> tensor<16xi32>
    %ri2 = arith.index_cast %r2 : tensor<16xi32> to tensor<16xindex>
    %l = tensor.splat %lo : tensor<16xindex>
    %m2 = arith.cmpi sge, %ri2, %l : tensor<16xindex>
    %both = arith.andi %m, %m2 : tensor<16xi1>
    %row = tensor.expand_shape %both [[0, 1]] output_shape [1, 16] : tensor<16xi1> into tensor<1x16xi1>
    %mask = "tile.broadcast"(%row) : (tensor<1x16xi1>) -> tensor<4x16xi1>
    %y = arith.select %mask, %x, %zero : tensor<4x16xi1>, tensor<4x16xf32>
    "tile.store_slice"(%y, %Y, %c0, %j) : (tensor<4x16xf32>, memref<?x?xf32>, index, index) -> ()
  }
  return
}

// -----

// Left alone: a select outside any loop, and one whose mask compares with a tile (the
// causal diagonal: every row its own bound).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
// CHECK: arith.select
// CHECK-NOT: scf.if
// CHECK: arith.select
// CHECK-NOT: scf.if
func.func @left_alone(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]}) attributes {tile.kernel, tile.launch = {threads = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %dim = memref.dim %X, %c0 : memref<?xf32>
  %x0 = "tile.load_slice"(%X, %c0) : (memref<?xf32>, index) -> tensor<32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32xf32>
  %r0 = "tile.range"() {end = 32 : i64, start = 0 : i64} : () -> tensor<32xi32>
  %ri0 = arith.index_cast %r0 : tensor<32xi32> to tensor<32xindex>
  %n0 = tensor.splat %dim : tensor<32xindex>
  %m0 = arith.cmpi slt, %ri0, %n0 : tensor<32xindex>
  %y0 = arith.select %m0, %x0, %zero : tensor<32xi1>, tensor<32xf32>
  "tile.store_slice"(%y0, %Y, %c0) : (tensor<32xf32>, memref<?xf32>, index) -> ()
  scf.for %j = %c0 to %dim step %c32 {
    %x = "tile.load_slice"(%X, %j) : (memref<?xf32>, index) -> tensor<32xf32>
    %r = "tile.range"() {end = 32 : i64, start = 0 : i64} : () -> tensor<32xi32>
    %ri = arith.index_cast %r : tensor<32xi32> to tensor<32xindex>
    %bounds = "tile.range"() {end = 64 : i64, start = 32 : i64} : () -> tensor<32xi32>
    %bi = arith.index_cast %bounds : tensor<32xi32> to tensor<32xindex>
    %m = arith.cmpi slt, %ri, %bi : tensor<32xindex>
    %y = arith.select %m, %x, %zero : tensor<32xi1>, tensor<32xf32>
    "tile.store_slice"(%y, %Y, %j) : (tensor<32xf32>, memref<?xf32>, index) -> ()
  }
  return
}
