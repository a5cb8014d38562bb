// The lowering of a @pipeline ring follows its two barrier records: the stage barrier at the
// start of each iteration (kept; a record that elides it is a located error, as a ring cannot
// run without it) and the refill of the next stage (elided: the stage barrier orders it; a record
// that keeps it adds a barrier before the refill).
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers)' > %t.mlir
// RUN: FileCheck %s --check-prefix=RECORDS < %t.mlir
// RUN: phobos-opt %t.mlir --tile-lower-to-gpu | FileCheck %s --check-prefix=AS-RECORDED
// RUN: sed 's/refill = {at = \([^}]*\), barrier = false/refill = {at = \1, barrier = true/' %t.mlir | phobos-opt --tile-lower-to-gpu | FileCheck %s --check-prefix=REFILL
// RUN: sed 's/"stage-barrier" = {at = \([^}]*\), barrier = true/"stage-barrier" = {at = \1, barrier = false/' %t.mlir | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=ELIDED

// RECORDS: tile.pipeline_stages
// RECORDS-SAME: refill = {at = "the next stage's copies at {{.*}}", barrier = false
// RECORDS-SAME: "stage-barrier" = {at = "the start of each iteration of the pipelined loop at {{.*}}", barrier = true

// AS-RECORDED: scf.for
// AS-RECORDED: nvvm.cp.async.wait.group 1
// AS-RECORDED-NEXT: gpu.barrier
// AS-RECORDED-NOT: gpu.barrier
// AS-RECORDED: scf.yield

// REFILL: scf.for
// REFILL: nvvm.cp.async.wait.group 1
// REFILL-NEXT: gpu.barrier
// REFILL-NEXT: gpu.barrier
// REFILL-NOT: gpu.barrier
// REFILL: scf.yield

// ELIDED: error: tile.sync elides the stage barrier of this pipelined loop, but a ring cannot run without it

@launch(256)
@pipeline
@aligned(M = 64, N = 64, K = 16)
kernel ring(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 16) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 16], B[kt :+ 16, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}
