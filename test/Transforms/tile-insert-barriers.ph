// tile-insert-barriers records each shared-memory event's barrier, kept or
// elided with the reason. Without @pipeline a K step copies both operands and
// the dot reads them: the lhs copy needs a barrier (it overwrites what the
// previous step's dot read), which also orders the rhs copy; the dot's reads
// need one after the copies. The lowering emits the barriers recorded as kept:
// with the dot's barrier elided by hand, one barrier per step remains.
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers)' | FileCheck %s
// RUN: phobos compile %s --emit=gpu | FileCheck %s --check-prefix=BOTH
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers)' | sed 's/read = {at = \(.*\), barrier = true/read = {at = \1, barrier = false/' | phobos-opt --tile-lower-to-gpu | FileCheck %s --check-prefix=ONE

// CHECK: func.func @synchronous{{.*}}tile.sync_planned
// CHECK: "tile.load_slice"
// CHECK-SAME: tile.sync = {copy = {at = "the copy of the lhs tile at {{.*}}", barrier = true, order = {{[0-9]+}} : i64, why = "write after read: {{.*}}"}}
// CHECK: "tile.load_slice"
// CHECK-SAME: tile.sync = {copy = {at = "the copy of the rhs tile at {{.*}}", barrier = false, order = {{[0-9]+}} : i64, why = "an earlier barrier already orders it"}}
// CHECK: "tile.dot"
// CHECK-SAME: tile.sync = {read = {at = "the dot's reads at {{.*}}", barrier = true, order = {{[0-9]+}} : i64, why = "read after write: {{.*}}"}}

// BOTH: scf.for
// BOTH-COUNT-2: gpu.barrier
// BOTH-NOT: gpu.barrier
// BOTH: scf.yield

// ONE: scf.for
// ONE: gpu.barrier
// ONE-NOT: gpu.barrier
// ONE: scf.yield

kernel synchronous(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[kt :+ 8, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}
