// A @tensorcore dot the tensor cores cannot run (its types, its k step, its
// accumulator on the kernel's warps) runs on CUDA cores, as the original Phobos
// specifies: a located warning at the dot naming the rule, tile.dot_path = "fma"
// with the reason as its note, the FMA dot layout, and the contract says why.
// RUN: phobos compile %s --kernel=bf16_accumulator --emit=gpu 2>&1 >/dev/null | FileCheck %s --check-prefix=BF16ACC --implicit-check-not=Traceback
// RUN: phobos compile %s --kernel=tf32_short_k --emit=gpu 2>&1 >/dev/null | FileCheck %s --check-prefix=TF32K --implicit-check-not=Traceback
// RUN: phobos compile %s --kernel=thin --emit=gpu 2>&1 >/dev/null | FileCheck %s --check-prefix=THIN --implicit-check-not=Traceback
// RUN: phobos compile %s --kernel=short_k --emit=gpu 2>&1 >/dev/null | FileCheck %s --check-prefix=SHORTK --implicit-check-not=Traceback
// RUN: phobos compile %s --kernel=short_k --chip=sm_90a --emit=ptx 2>/dev/null | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %s --kernel=short_k --emit=contract 2>/dev/null | FileCheck %s --check-prefix=CONTRACT
// RUN: phobos compile %s --kernel=short_k --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' 2>/dev/null | FileCheck %s --check-prefix=RECORD
// RUN: phobos compile %s --kernel=short_k --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' 2>&1 >/dev/null | FileCheck %s --check-prefix=OPT
// RUN: phobos compile %s --kernel=short_k --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots)' 2>/dev/null | sed 's/tile.dot_path = "fma"/tile.dot_path = "mma.sync"/' | not phobos-opt --tile-lower-to-gpu 2>&1 | FileCheck %s --check-prefix=FORCED

// BF16ACC: tensorcore-fallback.ph:[[@LINE+6]]:12: warning: @tensorcore: the tensor cores cannot run this dot, so the kernel's dots run on CUDA cores (fma): a dot of bf16 x bf16 into bf16 has no tensor-core instruction (mma.sync takes f16 x f16 into f32 or f16, bf16 x bf16 into f32, f32 x f32 into f32 as tf32, i8 x i8 into i32, and f8e4m3 or f8e5m2 (each with itself) into f32)
// BF16ACC-NEXT: acc += dot(
@tensorcore
kernel bf16_accumulator(A: tensor<bf16>[M, K], B: tensor<bf16>[K, N], C: tensor<bf16>[M, N]) {
  var acc: tile<bf16>[64, 64] = 0.0
  for k in range(0, K, 16) {
    acc += dot(A[0 :+ 64, k :+ 16], B[k :+ 16, 0 :+ 64])
  }
  C[0 :+ 64, 0 :+ 64] = acc
}

// TF32K: tensorcore-fallback.ph:[[@LINE+5]]:12: warning: {{.*}}(fma): the reduced extent 4 is not a multiple of 8 (mma.sync m16n8k8 on tf32 takes k in steps of 8)
@tensorcore
kernel tf32_short_k(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 4) {
    acc += dot(A[0 :+ 64, k :+ 4], B[k :+ 4, 0 :+ 64])
  }
  C[0 :+ 64, 0 :+ 64] = acc
}

// THIN: tensorcore-fallback.ph:[[@LINE+6]]:12: warning: {{.*}}(fma): the [8, 64] accumulator does not split into m16 x n8 tiles for every warp
@tensorcore
@launch(128)
kernel thin(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[8, 64] = 0.0
  for k in range(0, K, 16) {
    acc += dot(A[0 :+ 8, k :+ 16], B[k :+ 16, 0 :+ 64])
  }
  C[0 :+ 8, 0 :+ 64] = acc
}

// SHORTK: tensorcore-fallback.ph:[[@LINE+18]]:12: warning: {{.*}}(fma): the reduced extent 8 is not a multiple of 16 (mma.sync m16n8k16 takes k in steps of 16)
// PTX-NOT: mma.sync
// PTX-NOT: wgmma
// PTX: fma.rn.f32
// CONTRACT: "tensor_cores": {
// CONTRACT-NEXT: "instruction": "fma",
// CONTRACT-NEXT: "why not mma.sync": "the dot at {{.*}}tensorcore-fallback.ph:[[@LINE+12]]:12: the reduced extent 8 is not a multiple of 16 (mma.sync m16n8k16 takes k in steps of 16)"
// The FMA dot layout (dot_layout: 4 x 4 registers per thread), not the mma accumulator's (1 x 2, lanes 8 x 4).
// RECORD: tile.layout = #tile.blocked<array<i64: 4, 4>, array<i64: 4, 8>
// RECORD: "tile.dot"
// RECORD-SAME: tile.dot_path = "fma", tile.dot_path_note = "the dot at {{.*}}: the reduced extent 8 is not a multiple of 16
// phobos-opt prints the warning as mlir-opt prints one.
// OPT: <stdin>:{{[0-9]+}}:12: warning: @tensorcore: {{.*}}(fma): the reduced extent 8
// FORCED: error: tile.dot_path = "mma.sync", but the tensor cores cannot run it: the dot at {{.*}}: the reduced extent 8 is not a multiple of 16
@tensorcore
kernel short_k(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 8) {
    acc += dot(A[0 :+ 64, k :+ 8], B[k :+ 8, 0 :+ 64])
  }
  C[0 :+ 64, 0 :+ 64] = acc
}
