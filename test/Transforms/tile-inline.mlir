// tile-inline replaces each func.call of a module function by the callee's body (arguments for
// parameters, returned values for results), follows calls that inlined bodies bring in, keeps
// the regions of the body (scf.for) and erases the functions.
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-inline)' | FileCheck %s

// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @k(
// CHECK-SAME: %[[S:arg1]]: f32
// CHECK: %[[X:.*]] = "tile.load_slice"
// CHECK: %[[SPLAT:.*]] = tensor.splat %[[S]] : tensor<4xf32>
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[SPLAT]]
// CHECK: %[[A:.*]] = arith.addf %[[M]], %[[M]]
// CHECK: %[[L:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[A]])
// CHECK: arith.addf %[[ACC]], %[[X]]
// CHECK: "tile.store_slice"(%[[L]],
// CHECK-NOT: call
func.func private @scale(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %splat = tensor.splat %s : tensor<4xf32>
  %m = arith.mulf %x, %splat : tensor<4xf32>
  %d = func.call @double(%m) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
func.func private @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = arith.addf %x, %x : tensor<4xf32>
  return %a : tensor<4xf32>
}
func.func private @loop(%init: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<4xf32>) {
    %n = arith.addf %acc, %x : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}, %s: f32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0) : (memref<?xf32>, index) -> tensor<4xf32>
  %y = func.call @scale(%x, %s) : (tensor<4xf32>, f32) -> tensor<4xf32>
  %z = func.call @loop(%y, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "tile.store_slice"(%z, %X, %c0) : (tensor<4xf32>, memref<?xf32>, index) -> ()
  return
}
