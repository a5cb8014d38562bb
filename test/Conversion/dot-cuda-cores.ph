// tile.dot on CUDA cores, at the gpu stage: operands staged through one extern
// shared region (offsets from the planner, the lhs rows padded from 8 to 12
// floats against bank conflicts), register-blocked FMAs on the accumulator
// vector (4 x 4 per thread for a 64 x 64 tile on 256 threads), and barriers
// only where shared_sync.py found a hazard.
// RUN: phobos compile %s --emit=gpu --kernel=pipelined --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' | FileCheck %s --check-prefix=PIPE
// RUN: phobos compile %s --emit=gpu --kernel=synchronous | FileCheck %s --check-prefix=SYNC
// RUN: phobos compile %s --emit=gpu --kernel=transposed | FileCheck %s --check-prefix=NT
// RUN: phobos compile %s --emit=contract --kernel=pipelined | FileCheck %s --check-prefix=CONTRACT

// @pipeline with the aligned key: a 3-stage ring of 16-byte cp.async copies
// (9216 + 6144 bytes), two prologue groups, one barrier per iteration after
// wait_group 1, a final wait_group 0, and 8 FMAs of vector<16xf32> per K step.
// PIPE: gpu.func @pipelined({{.*}} kernel attributes {{{.*}}phobos.shared_bytes = 15360 : i64
// PIPE: %[[RAW:.*]] = memref.get_global @__phobos_smem : memref<0xi8, #gpu.address_space<workgroup>>
// PIPE: %[[REGION:.*]] = memref.reinterpret_cast %[[RAW]] to offset: [0], sizes: [15360], strides: [1]
// PIPE: %[[LHS:.*]] = memref.view %[[REGION]][%c0][] : memref<15360xi8, #gpu.address_space<workgroup>> to memref<2304xf32, #gpu.address_space<workgroup>>
// PIPE: %[[RHS:.*]] = memref.view %[[REGION]][%c9216][] : memref<15360xi8, #gpu.address_space<workgroup>> to memref<1536xf32, #gpu.address_space<workgroup>>
// PIPE: nvgpu.device_async_copy %{{.*}}, %[[LHS]][%{{.*}}], 4 {bypassL1}
// PIPE: nvgpu.device_async_copy %{{.*}}, %[[RHS]][%{{.*}}], 4 {bypassL1}
// PIPE: nvvm.cp.async.commit.group
// PIPE: nvvm.cp.async.commit.group
// PIPE: scf.for %{{.*}} iter_args(%{{.*}} = %cst, %{{.*}} = %c0, %{{.*}} = %c2) -> (vector<16xf32>, index, index)
// PIPE-NEXT: nvvm.cp.async.wait.group 1
// PIPE-NEXT: gpu.barrier
// PIPE-NOT: gpu.barrier
// PIPE: nvvm.cp.async.commit.group
// PIPE-NOT: gpu.barrier
// PIPE-COUNT-8: vector.fma %{{.*}} : vector<16xf32>
// PIPE-NOT: gpu.barrier
// PIPE: scf.yield
// PIPE: nvvm.cp.async.wait.group 0
// PIPE: memref.global "public" @__phobos_smem : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 16 : i64}
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

// Without @pipeline, on ragged extents: per K step a barrier before the copies
// (write after the previous step's reads), masked loads selecting zero, the
// stores into shared memory, a barrier before the reads (read after write).
// SYNC: phobos.shared_bytes = 5120 : i64
// SYNC: scf.for
// SYNC: gpu.barrier
// SYNC: arith.cmpi ult
// SYNC: scf.if
// SYNC: memref.load
// SYNC: arith.select
// SYNC: memref.store %{{.*}}, %view[
// SYNC: memref.store %{{.*}}, %view_{{[0-9]+}}[
// SYNC: gpu.barrier
// SYNC-NOT: gpu.barrier
// SYNC-COUNT-8: vector.fma
// SYNC-NOT: gpu.barrier
// SYNC: scf.yield
kernel synchronous(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[kt :+ 8, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

// dot_t: the transpose folds into how the rhs buffer ([N][K], copied in the
// tensor's own row order) is read: along k, like the lhs.
// NT-NOT: tile.transpose
// NT: phobos.shared_plan = {{.*}}rhs of the dot{{.*}}\22shape\22: [64, 8]
// NT-COUNT-8: vector.fma
kernel transposed(A: tensor<f32>[M, K], B: tensor<f32>[N, K], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot_t(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[ctx.block.y * 64 :+ 64, kt :+ 8])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

// The launch passes the planned dynamic shared memory; the plan travels with the contract.
// CONTRACT: "shared_bytes": 15360
// CONTRACT: "shared_memory": {
// CONTRACT: "applied": true
