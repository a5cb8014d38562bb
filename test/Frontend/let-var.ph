// let binds, var declares a mutable value; an annotation fixes the type
// (scalars splat into tile annotations). Untyped integer literals default to
// index and float literals to f32. A `let` of a constant is a compile-time
// constant (it may size a slice). Inner blocks may shadow outer names.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @lv(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x?xf16>
// CHECK-SAME: %[[N:[a-z0-9]+]]: i32
kernel lv(A: tensor<f16>[M, N], n: i32) {
  // CHECK: arith.constant 16 : index
  let W = 16
  // CHECK: arith.constant 5.000000e-01 : f16
  let half: f16 = 0.5
  // CHECK: arith.muli %[[N]], %{{.*}} : i32
  let m = n * 2
  // CHECK: %[[T:.*]] = "tile.load_slice"(%[[A]], {{.*}}) : (memref<?x?xf16>, index, index) -> tensor<16x32xf16>
  let t = A[0 :+ W, 0 : W * 2]
  // CHECK: tensor.splat %{{.*}} : tensor<16x32xf16>
  var u: tile<f16>[16, 32] = half
  // CHECK: arith.constant dense<1.000000e+00> : tensor<16x32xf32>
  var v: tile<f32>[16, 32] = 1
  // CHECK: %[[I:.*]] = arith.constant 7 : i64
  var i: i64 = 7
  // CHECK: arith.constant 3 : index
  var big = 3
  // CHECK: %[[X:.*]] = arith.constant 1.500000e+00 : f32
  var x = 1.5
  // CHECK: %[[U:.*]] = arith.mulf %[[T]], %{{.*}} : tensor<16x32xf16>
  u = t * half
  // CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (f32) {
  // CHECK: arith.constant 2.000000e+00 : f32
  // CHECK: scf.yield %{{.*}} : f32
  // CHECK: } else {
  // CHECK: scf.yield %[[X]] : f32
  if true {
    let t = 2.0
    x = t
  }
  // CHECK: arith.addi %[[I]], %{{.*}} : i64
  i = i + 1
  // CHECK: "tile.store_slice"(%[[U]], %[[A]],
  A[0 :+ W, 0 :+ 32] = u
}
