// tile-pipeline records the @pipeline ring of each loop with staged loads:
// 3 stages where the loads' starts depend only on the loop index and their
// pieces suit cp.async; 0 stages and the reason where they do not. The
// lowering builds the ring the record asks for: a hand-edited 2-stage ring
// waits for all but 0 groups per iteration and its buffers shrink.
// RUN: phobos compile %s --emit=tile --kernel=pipelined | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline)' | FileCheck %s --check-prefix=RING
// RUN: phobos compile %s --emit=tile --kernel=narrow | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline)' | FileCheck %s --check-prefix=NARROW
// RUN: phobos compile %s --emit=tile --kernel=pipelined | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline)' | sed 's/tile.pipeline_stages = 3/tile.pipeline_stages = 2/' | phobos-opt -p 'builtin.module(tile-allocate-shared,tile-insert-barriers,tile-lower-to-gpu)' | FileCheck %s --check-prefix=TWO

// RING: scf.for
// RING: "tile.dot"
// RING: } {tile.pipeline_stages = 3 : i64}

// NARROW: } {tile.pipeline_note = "the load at {{.*}} copies 2-byte pieces; cp.async moves 4, 8 or 16", tile.pipeline_stages = 0 : i64}

// TWO: phobos.shared_bytes = 10240 : i64
// TWO: scf.for
// TWO-NEXT: nvvm.cp.async.wait.group 0
// TWO-NEXT: gpu.barrier

@launch(256)
@pipeline
@aligned(M = 64, N = 64, K = 8)
kernel pipelined(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[kt :+ 8, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

@pipeline
kernel narrow(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[kt :+ 8, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}
