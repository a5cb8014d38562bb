// A reduction inside a `while` goes through shared memory like one inside a `for`: the
// barrier plan (shared_plan._events) walks scf.while as a loop of its condition region and
// an optional body, so the reduction's reads wait for its writes (and the next iteration's
// writes for this one's reads). Without it the loop would have no barrier at all.
// RUN: phobos compile %s --emit=gpu | FileCheck %s --implicit-check-not=Traceback

// CHECK-LABEL: gpu.func @top2(
// CHECK: scf.while
// CHECK: } do {
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: scf.yield
@launch(128)
kernel top2(X: tensor<f32>[M, 512], V: tensor<f32>[M, 2]) {
  let r = ctx.block.x
  var x = padded(X[r :+ 1, 0 :+ 512], -inf)
  var j = 0
  while j < 2 {
    let m = max(x)
    if m == -inf {
      break
    }
    V[r, j] = m
    x = where(x == m, -inf, x)
    j = j + 1
  }
}
