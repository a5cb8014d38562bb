// 8-bit dots on sm_90a run warpgroup wgmma m64nNk32 when both operands are K-major: dot_t(a, b)
// with A [M, K] and B [N, K] (i8 into s32: .s32.s8.s8; fp8 into f32: .f32.e4m3.e4m3 or
// .f32.e5m2.e5m2), fed by TMA copies of 128-element (128-byte) swizzled rows, one k32 step 32
// bytes on along the row (descriptor + 2 in 16-byte units); fp8 wgmma needs PTX ISA 8.0 only.
// A plain dot, whose B is [K, N], cannot (8-bit wgmma has no transpose): it runs mma.sync
// m16n8k32 with a located warning that says why.
// REQUIRES: ptxas
// RUN: phobos compile %s --kernel wg_i8 --chip sm_90a --emit=ptx --args 'i8[256,256] i8[256,256] i32[256,256]' | FileCheck %s --check-prefix=I8
// RUN: phobos compile %s --kernel wg_e4m3 --chip sm_90a --emit=ptx --args 'f8e4m3[256,256] f8e4m3[256,256] f32[256,256]' | FileCheck %s --check-prefix=E4M3
// RUN: phobos compile %s --kernel wg_e5m2 --chip sm_90a --features +ptx84 --emit=ptx --args 'f8e5m2[256,256] f8e5m2[256,256] f32[256,256]' | FileCheck %s --check-prefix=E5M2
// RUN: phobos compile %s --kernel wg_i8 --chip sm_90a --emit=contract --args 'i8[256,256] i8[256,256] i32[256,256]' | FileCheck %s --check-prefix=CONTRACT
// RUN: phobos compile %s --kernel plain_i8 --chip sm_90a --emit=ptx --args 'i8[256,256] i8[256,256] i32[256,256]' 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: phobos compile %s --kernel wg_i8 --chip sm_90 --emit=ptx --args 'i8[256,256] i8[256,256] i32[256,256]' | FileCheck %s --check-prefix=SM90
// RUN: phobos compile %s --kernel wg_i8 --chip sm_90a --emit=cubin --args 'i8[256,256] i8[256,256] i32[256,256]' -o %t.i8.cubin
// RUN: phobos compile %s --kernel wg_e4m3 --chip sm_90a --emit=cubin --args 'f8e4m3[256,256] f8e4m3[256,256] f32[256,256]' -o %t.e4m3.cubin

// I8-LABEL: .entry wg_i8
// I8: mbarrier.init.shared.b64
// I8: prefetch.tensormap
// I8: mov.b32 [[TX:%r[0-9]+]], 16384;
// I8-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[TX]];
// I8: cp.async.bulk.tensor.{{[25]}}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// descriptors: (start / 16) | 512 << 16 | (1024 / 16) << 32 | 1 << 62 (128-byte swizzle)
// I8: or.b64 {{.*}}, 4611686293338849280;
// I8: mbarrier.try_wait.parity.shared.b64
// I8: wgmma.fence.sync.aligned;
// I8: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, [[A0:%rd[0-9]+]], [[B0:%rd[0-9]+]], p;
// I8: or.b64 [[B1:%rd[0-9]+]], [[B0]], 2;
// I8: or.b64 [[A1:%rd[0-9]+]], [[A0]], 2;
// I8: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, [[A1]], [[B1]], p;
// I8-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8
// I8-NOT: wgmma.mma_async
// I8: wgmma.commit_group.sync.aligned;
// I8: wgmma.wait_group.sync.aligned 0;
// I8-NOT: mma.sync
@launch(128)
@tensorcore
@pipeline
kernel wg_i8(A: tensor<i8>[M, K], B: tensor<i8>[N, K], C: tensor<i32>[M, N]) {
  var acc: tile<i32>[64, 64] = 0
  for k in range(0, K, 128) {
    acc += dot_t(A[ctx.block.x * 64 :+ 64, k :+ 128], B[ctx.block.y * 64 :+ 64, k :+ 128])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

// E4M3: .version 8.0
// E4M3-LABEL: .entry wg_e4m3
// E4M3: cp.async.bulk.tensor
// E4M3-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
// E4M3-NOT: mma.sync
@launch(128)
@tensorcore
@pipeline
kernel wg_e4m3(A: tensor<f8e4m3>[M, K], B: tensor<f8e4m3>[N, K], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 128) {
    acc += dot_t(A[ctx.block.x * 64 :+ 64, k :+ 128], B[ctx.block.y * 64 :+ 64, k :+ 128])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

// E5M2-LABEL: .entry wg_e5m2
// E5M2-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2
@launch(128)
@tensorcore
@pipeline
kernel wg_e5m2(A: tensor<f8e5m2>[M, K], B: tensor<f8e5m2>[N, K], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 128) {
    acc += dot_t(A[ctx.block.x * 64 :+ 64, k :+ 128], B[ctx.block.y * 64 :+ 64, k :+ 128])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

// CONTRACT: "instruction": "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8"
// CONTRACT: "instruction": "wgmma"
// CONTRACT: "box": [
// CONTRACT-NEXT: 128,
// CONTRACT-NEXT: 8
// CONTRACT: "kind": "tensormap"

// PLAIN: wgmma-8bit.ph:[[@LINE+12]]:12: warning: @tensorcore: this dot runs on mma.sync, not wgmma (much slower on sm_90a): its rhs is stored [k][n]; 8-bit wgmma reads both operands K-major, so B must be [n][k]: write dot_t(a, b) with b as [N, K]
// PLAIN-NEXT: acc += dot(A
// PLAIN-NEXT: ^
// PLAIN-LABEL: .entry plain_i8
// PLAIN: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// PLAIN-NOT: wgmma.mma_async
@launch(128)
@tensorcore
@pipeline
kernel plain_i8(A: tensor<i8>[M, K], B: tensor<i8>[K, N], C: tensor<i32>[M, N]) {
  var acc: tile<i32>[64, 64] = 0
  for k in range(0, K, 128) {
    acc += dot(A[ctx.block.x * 64 :+ 64, k :+ 128], B[k :+ 128, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

// SM90-LABEL: .entry wg_i8
// SM90: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// SM90-NOT: wgmma
