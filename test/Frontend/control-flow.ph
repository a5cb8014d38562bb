// for/while/if lower to scf.for/scf.while/scf.if. A `var` declared outside a
// loop or branch and assigned inside it is carried: an iter_arg of the loop,
// a result of the if (the branch that does not assign it yields the old value).
// Variables declared inside stay inside; `let`s are never carried.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @cf(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<?x32xf32>
// CHECK-SAME: %[[N:[a-z0-9]+]]: i32
kernel cf(A: tensor<f32>[M, 32], n: i32) {
  // CHECK: %[[R:.*]] = "tile.block_id"() {dim = 0 : i64}
  let r = ctx.block.x
  // CHECK: %[[ACC0:.*]] = arith.constant dense<0.000000e+00> : tensor<4x32xf32>
  var acc: tile<f32>[4, 32] = 0.0
  // CHECK: %[[COUNT0:.*]] = arith.constant 0 : index
  var count = 0
  // CHECK: %[[TOTAL0:.*]] = arith.constant 0.000000e+00 : f32
  var total: f32 = 0

  // CHECK: %[[LB:.*]] = arith.constant 0 : index
  // CHECK: %[[UB:.*]] = arith.index_cast %[[N]] : i32 to index
  // CHECK: %[[STEP:.*]] = arith.constant 4 : index
  // CHECK: %[[FOR:.*]]:2 = scf.for %[[K:.*]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[ACC0]], %[[COUNT:.*]] = %[[COUNT0]]) -> (tensor<4x32xf32>, index) {
  for k in range(0, n, 4) {
    // CHECK: %[[X:.*]] = "tile.load_slice"(%[[A]], %[[K]], %{{.*}})
    let x = A[k :+ 4, 0 :+ 32]
    // CHECK: %[[ACC1:.*]] = arith.addf %[[ACC]], %[[X]] : tensor<4x32xf32>
    acc += x
    // CHECK: %[[COUNT1:.*]] = arith.addi %[[COUNT]], %{{.*}} : index
    count = count + 1
    // CHECK: arith.mulf
    var local = 1.0
    local = local * 2.0
    // CHECK: scf.yield %[[ACC1]], %[[COUNT1]] : tensor<4x32xf32>, index
    // CHECK-NEXT: }
  }

  // The condition is evaluated in the before region on the carried values.
  // CHECK: %[[W:.*]]:2 = scf.while (%[[WC:.*]] = %[[FOR]]#1, %[[WT:.*]] = %[[TOTAL0]]) : (index, f32) -> (index, f32) {
  // CHECK: %[[COND:.*]] = arith.cmpi sgt, %[[WC]], %{{.*}} : index
  // CHECK: scf.condition(%[[COND]]) %[[WC]], %[[WT]] : index, f32
  // CHECK: } do {
  // CHECK: ^bb0(%[[BC:.*]]: index, %[[BT:.*]]: f32):
  while count > 0 {
    // CHECK: %[[DEC:.*]] = arith.subi %[[BC]], %{{.*}} : index
    count -= 1
    // CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (f32) {
    // CHECK: %[[INC:.*]] = arith.addf %[[BT]], %{{.*}} : f32
    // CHECK: scf.yield %[[INC]] : f32
    // CHECK: } else {
    // CHECK: scf.yield %[[BT]] : f32
    // CHECK: }
    if count == 3 {
      total = total + 1.0
    }
    // CHECK: scf.yield %[[DEC]], %[[IF]] : index, f32
  }

  // else-if chains nest; each level yields what any branch assigns.
  // CHECK: %[[IF1:.*]]:2 = scf.if %{{.*}} -> (f32, tensor<4x32xf32>) {
  // CHECK: %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
  // CHECK: scf.yield %[[FIVE]], %[[FOR]]#0 : f32, tensor<4x32xf32>
  // CHECK: } else {
  // CHECK: %[[IF2:.*]]:2 = scf.if %{{.*}} -> (tensor<4x32xf32>, f32) {
  // CHECK: %[[TWICE:.*]] = arith.mulf %[[FOR]]#0, %{{.*}} : tensor<4x32xf32>
  // CHECK: scf.yield %[[TWICE]], %[[W]]#1 : tensor<4x32xf32>, f32
  // CHECK: } else {
  // CHECK: %[[SEVEN:.*]] = arith.constant 7.000000e+00 : f32
  // CHECK: %[[THRICE:.*]] = arith.mulf %[[FOR]]#0, %{{.*}} : tensor<4x32xf32>
  // CHECK: scf.yield %[[THRICE]], %[[SEVEN]] : tensor<4x32xf32>, f32
  // CHECK: }
  // CHECK: scf.yield %[[IF2]]#1, %[[IF2]]#0 : f32, tensor<4x32xf32>
  // CHECK: }
  if r == 0 {
    total = 5.0
  } else if r == 1 {
    acc = acc * 2.0
  } else {
    total = 7.0
    acc = acc * 3.0
  }

  // An if that assigns nothing has no results and no else.
  // CHECK: scf.if %{{.*}} {
  // CHECK-NEXT: "tile.barrier"() : () -> ()
  // CHECK-NEXT: }
  if total > 1.0 {
    barrier()
  }

  // CHECK: %[[ST:.*]] = tensor.splat %[[IF1]]#0 : tensor<4x32xf32>
  // CHECK: %[[OUT:.*]] = arith.addf %[[IF1]]#1, %[[ST]] : tensor<4x32xf32>
  // CHECK: "tile.store_slice"(%[[OUT]], %[[A]],
  A[r * 4 :+ 4, 0 :+ 32] = acc + total
}
