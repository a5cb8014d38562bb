// Round trip of every tile op through phobos-opt (twice: the printed form
// parses again) and through upstream mlir-opt with the IRDL definition.
// RUN: phobos-opt %s | phobos-opt | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s
// RUN: %if mlir-opt %{ %mlir-opt --irdl-file=%irdl %s | FileCheck %s %}

// CHECK-LABEL: func.func @all_ops
// CHECK-SAME: tile.dims = ["M", "N"]
// CHECK-SAME: attributes {tile.aligned = {M = 32 : i64}, tile.autotune = {TM = array<i64: 32, 64>}, tile.bindings = {TM = 32 : i64}, tile.kernel, tile.launch = {threads = 128 : i64}, tile.pipeline}
func.func @all_ops(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "N"]},
                   %B: memref<?xi32> {tile.name = "B", tile.dims = ["K"]},
                   %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel, tile.launch = {threads = 128 : i64}, tile.aligned = {M = 32 : i64},
                tile.autotune = {TM = array<i64: 32, 64>}, tile.bindings = {TM = 32 : i64}, tile.pipeline} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  // CHECK: "tile.check_multiple"(%{{.*}}) {divisor = 32 : i64, symbol = "M"} : (index) -> index
  %mc = "tile.check_multiple"(%m) {divisor = 32 : i64, symbol = "M"} : (index) -> index
  // CHECK: "tile.block_id"() {dim = 0 : i64} : () -> index
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  // CHECK: "tile.grid_dim"() {dim = 1 : i64} : () -> index
  %nb = "tile.grid_dim"() {dim = 1 : i64} : () -> index
  // CHECK: "tile.range"() {end = 64 : i64, start = 0 : i64} : () -> tensor<64xi32>
  %r = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  // CHECK: "tile.hint"(%{{.*}}) {contiguity = array<i64: 64>, divisibility = array<i64: 16>} : (tensor<64xi32>) -> tensor<64xi32>
  %h = "tile.hint"(%r) {divisibility = array<i64: 16>, contiguity = array<i64: 64>} : (tensor<64xi32>) -> tensor<64xi32>
  // CHECK: "tile.load_slice"(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?xf32>, index, index) -> tensor<32x64xf32>
  %t = "tile.load_slice"(%A, %pid, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x64xf32>
  // CHECK: "tile.load_slice"(%{{.*}}, %{{.*}}, %{{.*}}) {in_bounds = array<i1: true, false>}
  %t2 = "tile.load_slice"(%A, %pid, %c0) {in_bounds = array<i1: true, false>} : (memref<?x?xf32>, index, index) -> tensor<32x64xf32>
  // The fill value of elements outside the tensor: -inf prints as its bits.
  // CHECK: "tile.load_slice"(%{{.*}}, %{{.*}}, %{{.*}}) {padding = 0xFF800000 : f32} : (memref<?x?xf32>, index, index) -> tensor<32x64xf32>
  %t3 = "tile.load_slice"(%A, %pid, %c0) {padding = 0xFF800000 : f32} : (memref<?x?xf32>, index, index) -> tensor<32x64xf32>
  // CHECK: "tile.load_slice"(%{{.*}}, %{{.*}}, %{{.*}}) {in_bounds = array<i1: true, false>, padding = -2.500000e-01 : f32}
  %t4 = "tile.load_slice"(%A, %pid, %c0) {in_bounds = array<i1: true, false>, padding = -0.25 : f32} : (memref<?x?xf32>, index, index) -> tensor<32x64xf32>
  // CHECK: "tile.store_slice"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<32x64xf32>, memref<?x?xf32>, index, index) -> ()
  "tile.store_slice"(%t, %A, %pid, %c0) : (tensor<32x64xf32>, memref<?x?xf32>, index, index) -> ()
  %mask = arith.constant dense<true> : tensor<64xi1>
  // CHECK: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  %v = "tile.load"(%B, %h, %mask) : (memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  // CHECK: "tile.load"(%{{.*}}, %{{.*}}) : (memref<?xi32>, tensor<64xi32>) -> tensor<64xi32>
  %v2 = "tile.load"(%B, %h) : (memref<?xi32>, tensor<64xi32>) -> tensor<64xi32>
  // CHECK: "tile.load"(%{{.*}}, %{{.*}}, %{{.*}}) {padding = -2147483648 : i32} : (memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  %v3 = "tile.load"(%B, %h, %mask) {padding = -2147483648 : i32} : (memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  // CHECK: "tile.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<64xi32>, memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> ()
  "tile.store"(%v, %B, %h, %mask) : (tensor<64xi32>, memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> ()
  %row = tensor.expand_shape %r [[0, 1]] output_shape [1, 64] : tensor<64xi32> into tensor<1x64xi32>
  // CHECK: "tile.broadcast"(%{{.*}}) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  %b = "tile.broadcast"(%row) : (tensor<1x64xi32>) -> tensor<32x64xi32>
  // CHECK: "tile.transpose"(%{{.*}}) {permutation = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %tt = "tile.transpose"(%t) {permutation = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
  // CHECK: "tile.convert_layout"(%{{.*}}) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %cv = "tile.convert_layout"(%t) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %acc = arith.constant dense<0.0> : tensor<32x32xf32>
  // CHECK: "tile.dot"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<32x64xf32>, tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %d = "tile.dot"(%t, %tt, %acc) : (tensor<32x64xf32>, tensor<64x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  // CHECK: "tile.reduce"(%{{.*}}) {axis = 1 : i64, kind = "sum"} : (tensor<32x32xf32>) -> tensor<32xf32>
  %s = "tile.reduce"(%d) {kind = "sum", axis = 1 : i64} : (tensor<32x32xf32>) -> tensor<32xf32>
  // CHECK: "tile.reduce"(%{{.*}}) {axis = 0 : i64, kind = "max"} : (tensor<32xf32>) -> f32
  %mx = "tile.reduce"(%s) {kind = "max", axis = 0 : i64} : (tensor<32xf32>) -> f32
  // CHECK: "tile.reduce"(%{{.*}}) {axis = 0 : i64, kind = "min"} : (tensor<32xf32>) -> f32
  %mn = "tile.reduce"(%s) {kind = "min", axis = 0 : i64} : (tensor<32xf32>) -> f32
  // CHECK: "tile.scan"(%{{.*}}) {axis = 0 : i64, kind = "sum"} : (tensor<32xf32>) -> tensor<32xf32>
  %cs = "tile.scan"(%s) {kind = "sum", axis = 0 : i64} : (tensor<32xf32>) -> tensor<32xf32>
  // CHECK: "tile.barrier"() : () -> ()
  "tile.barrier"() : () -> ()
  // CHECK: "tile.grid_barrier"() : () -> ()
  "tile.grid_barrier"() : () -> ()
  return
}

// A tile with a layout encoding prints in the pretty tensor form.
// CHECK-LABEL: func.func @encoded
// CHECK-SAME: tensor<32x128xf32, #tile.blocked<array<i64: 1, 4>, array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 0>>>
func.func @encoded(%t: tensor<32x128xf32, #tile.blocked<array<i64: 1, 4>, array<i64: 1, 32>, array<i64: 8, 1>, array<i64: 1, 0>>>) {
  return
}
