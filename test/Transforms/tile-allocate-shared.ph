// tile-allocate-shared records the kernel's buffers: the lhs rows padded from
// 8 to 12 floats against bank conflicts, each operand's 3 ring stages, the rhs
// after the lhs (both live across the loop). The lowering views the buffers at
// the recorded offsets: moved by hand, the rhs is read there.
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared)' | FileCheck %s
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared)' | sed 's/offset = 9216/offset = 10240/' | phobos-opt -p 'builtin.module(tile-insert-barriers,tile-lower-to-gpu)' | FileCheck %s --check-prefix=MOVED

// CHECK: tile.shared = {buffers = [
// CHECK-SAME: {bytes = 9216 : i64, ld = 12 : i64, name = "lhs of the dot at {{.*}}", offset = 0 : i64, shape = array<i64: 64, 8>, stages = 3 : i64}
// CHECK-SAME: {bytes = 6144 : i64, ld = 64 : i64, name = "rhs of the dot at {{.*}}", offset = 9216 : i64, shape = array<i64: 8, 64>, stages = 3 : i64}
// CHECK-SAME: bytes = 15360 : i64}

// MOVED: phobos.shared_bytes = 16384 : i64
// MOVED: memref.view %{{.*}}[%c10240{{.*}}][] : memref<16384xi8, #gpu.address_space<workgroup>> to memref<1536xf32, #gpu.address_space<workgroup>>

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
