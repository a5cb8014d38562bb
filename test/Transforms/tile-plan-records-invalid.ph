// The plan records are the lowering's input: one it cannot obey is an error
// at the op that carries it, naming the attribute.
// RUN: phobos compile %s --emit=tile --kernel=pipelined | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline)' | sed 's/tile.pipeline_stages = 3/tile.pipeline_stages = 1/' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: phobos compile %s --emit=tile --kernel=narrow | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline)' | sed 's/tile.pipeline_stages = 0/tile.pipeline_stages = 3/' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=CANNOT
// RUN: phobos compile %s --emit=tile --kernel=pipelined | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' | sed 's/tile.dot_path = "fma"/tile.dot_path = "wgmma"/' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=PATH
// RUN: phobos compile %S/../../bench/kernels/hgemm.ph -D TK=64 --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' | sed 's/tile.dot_path = "mma.sync"/tile.dot_path = "wgmma"/' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: phobos compile %s --emit=tile --kernel=two_dots | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' | sed '0,/tile.dot_path = "fma"/s//tile.dot_path_was = "fma"/' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: phobos compile %s --emit=tile --kernel=two_dots | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' | awk '/tile.dot_path = "fma"/ && ++n == 2 { sub(/"fma"/, "\"mma.sync\"") } 1' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: phobos compile %s --emit=tile --kernel=pipelined | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared)' | sed 's/shape = array<i64: 8, 64>/shape = array<i64: 8, 32>/' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=STALE

// ONE: error: expects tile.pipeline_stages to be 0 (no ring) or at least 2, got 1
// CANNOT: error: tile.pipeline_stages = 3, but the loop cannot be pipelined: the load at {{.*}} copies 2-byte pieces; cp.async moves 4, 8 or 16
// PATH: error: tile.dot_path = "wgmma" is not a path this kernel may take (without @tensorcore dots run fma)
// CHIP: error: tile.dot_path = "wgmma", but sm_90 has no wgmma
// MISSING: error: expects tile.dot_path on every dot of the kernel, the same on each
// STALE: error: tile.shared does not describe the buffer 'rhs of the dot at {{.*}}': run tile-allocate-shared again

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

kernel two_dots(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  let a = A[ctx.block.x * 64 :+ 64, 0 :+ 8]
  let b = B[0 :+ 8, ctx.block.y * 64 :+ 64]
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = dot(a, b) + dot(a, b)
}
