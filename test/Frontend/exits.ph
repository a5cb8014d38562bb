// break, continue and return become carried bool flags (frontend/exit_ir.py): a `for`
// with a break is a while over its counter that stops when the flag is set, the rest of
// a block after an exit runs under `if`, `return` clears a kernel flag; a single
// element is a 1x1 slice and a tensor.extract.
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @search(
kernel search(X: tensor<f32>[N], Y: tensor<f32>[N], n: i32) {
  // CHECK: %[[ALIVE:.*]] = arith.constant true
  // CHECK: %[[B:.*]] = "tile.block_id"
  let b = ctx.block.x
  // CHECK: %[[RET:.*]] = scf.if %{{.*}} -> (i1) {
  // CHECK: scf.yield %false
  // CHECK: } else {
  // CHECK: scf.yield %[[ALIVE]]
  if b > 4 {
    return
  }
  // CHECK: scf.if %[[RET]] {
  var at = 0
  // The for with a break: counter, stop and step once, then a while.
  // CHECK: %[[STOP:.*]] = arith.index_cast %{{.*}} : i32 to index
  // CHECK: scf.while (%[[NEXT:.*]] = %{{.*}}, %[[AT:.*]] = %{{.*}}, %[[BRK:.*]] = %false{{.*}}) : (index, index, i1)
  // CHECK: %[[NB:.*]] = arith.xori %[[BRK]], %true
  // CHECK: %[[LT:.*]] = arith.cmpi slt, %[[NEXT]], %[[STOP]] : index
  // CHECK: %[[GO:.*]] = arith.andi %[[NB]], %[[LT]] : i1
  // CHECK: scf.condition(%[[GO]])
  for i in range(0, n) {
    // CHECK: arith.addi
    // CHECK: %[[FALSE:.*]] = arith.constant false
    // CHECK: scf.if %{{.*}} -> (i1) {
    if i % 2 == 1 {
      continue
    }
    // CHECK: "tile.load_slice"(%{{.*}}) : (memref<?xf32>, index) -> tensor<1xf32>
    // CHECK: tensor.extract %{{.*}} : tensor<1xf32>
    if X[i] > 0.0 {
      at = i
      break
    }
    at = at + 1
  }
  // CHECK: tensor.splat %{{.*}} : tensor<1xf32>
  // CHECK: "tile.store_slice"
  Y[b] = f32(at)
}
