// i8 dots under @tensorcore run mma.sync m16n8k32 .s32.s8.s8.s32 (sm_80 and newer). A stored
// [m][k] and B stored [n][k] (dot_t) come by ldmatrix.x4 (16-byte rows: one register of four
// consecutive-k bytes per lane); B stored [k][n] (dot) comes by byte loads, since ldmatrix.trans
// moves 16-bit units and cannot transpose bytes. The contract names the instruction and the
// reads; a K tile that is not a multiple of 32 runs on CUDA cores with a located warning.
// REQUIRES: ptxas
// RUN: phobos compile %s --kernel tc_i8 --chip sm_80 --emit=ptx | FileCheck %s --check-prefix=DOT
// RUN: phobos compile %s --kernel tc_i8_t --chip sm_80 --emit=ptx | FileCheck %s --check-prefix=DOTT
// RUN: phobos compile %s --kernel tc_i8_aligned --emit=ptx --args 'i8[256,256] i8[256,256] i32[256,256]' | FileCheck %s --check-prefix=ALIGNED
// RUN: phobos compile %s --kernel tc_i8 --emit=contract | FileCheck %s --check-prefix=CONTRACT
// RUN: phobos compile %s --kernel tc_i8_tn --emit=ptx | FileCheck %s --check-prefix=TN
// RUN: phobos compile %s --kernel short_k --emit=ptx 2>&1 | FileCheck %s --check-prefix=SHORTK
// RUN: phobos compile %s --kernel tc_i8 --chip sm_80 --emit=cubin -o %t.dot.cubin
// RUN: phobos compile %s --kernel tc_i8_t --emit=cubin -o %t.dott.cubin

// DOT-LABEL: .entry tc_i8
// DOT: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// DOT: ld.shared.b8
// DOT: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// DOT-NOT: ldmatrix{{.*}}.trans
// DOT-COUNT-15: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// DOT-NOT: mma.sync
@launch(128)
@tensorcore
@pipeline
kernel tc_i8(A: tensor<i8>[M, K], B: tensor<i8>[K, N], C: tensor<i32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<i32>[64, 64] = 0
  for k in range(0, K, 64) {
    acc += dot(A[pm * 64 :+ 64, k :+ 64], B[k :+ 64, pn * 64 :+ 64])
  }
  C[pm * 64 :+ 64, pn * 64 :+ 64] = acc
}

// DOTT-LABEL: .entry tc_i8_t
// DOTT-NOT: ld.shared.b8
// DOTT-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// DOTT: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// DOTT-NOT: ld.shared.b8
// DOTT-NOT: .trans
@launch(128)
@tensorcore
@pipeline
kernel tc_i8_t(A: tensor<i8>[M, K], B: tensor<i8>[N, K], C: tensor<i32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<i32>[64, 64] = 0
  for k in range(0, K, 64) {
    acc += dot_t(A[pm * 64 :+ 64, k :+ 64], B[pn * 64 :+ 64, k :+ 64])
  }
  C[pm * 64 :+ 64, pn * 64 :+ 64] = acc
}

// A given as [k][m] (a transposed slice): its fragments by byte loads, 16 per m16 tile and k32 step.
// TN-LABEL: .entry tc_i8_tn
// TN-COUNT-16: ld.shared.b8
// TN: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// TN-NOT: .trans
@launch(128)
@tensorcore
kernel tc_i8_tn(A: tensor<i8>[K, M], B: tensor<i8>[N, K], C: tensor<i32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<i32>[64, 64] = 0
  for k in range(0, K, 64) {
    acc += dot_t(transpose(A[k :+ 64, pm * 64 :+ 64]), B[pn * 64 :+ 64, k :+ 64])
  }
  C[pm * 64 :+ 64, pn * 64 :+ 64] = acc
}

// Whole tiles: 16-byte cp.async copies into the ring.
// ALIGNED-LABEL: .entry tc_i8_aligned
// ALIGNED: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16
// ALIGNED: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// ALIGNED: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
@launch(256)
@tensorcore
@pipeline
@aligned(M = 128, N = 128, K = 64)
kernel tc_i8_aligned(A: tensor<i8>[M, K], B: tensor<i8>[N, K], C: tensor<i32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<i32>[128, 128] = 0
  for k in range(0, K, 64) {
    acc += dot_t(A[pm * 128 :+ 128, k :+ 64], B[pn * 128 :+ 128, k :+ 64])
  }
  C[pm * 128 :+ 128, pn * 128 :+ 128] = acc
}

// CONTRACT: "tensor_cores": {
// CONTRACT-NEXT: "dots": [
// CONTRACT-NEXT: {
// CONTRACT-NEXT: "at": "{{.*}}tensorcore-i8.ph:{{[0-9]+}}:12",
// CONTRACT-NEXT: "instruction": "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
// CONTRACT-NEXT: "reads": {
// CONTRACT-NEXT: "lhs": "ldmatrix",
// CONTRACT-NEXT: "rhs": "byte loads (stored [k][n]; dot_t's [n][k] takes ldmatrix)"

// SHORTK: tensorcore-i8.ph:[[@LINE+6]]:12: warning: {{.*}}(fma): the reduced extent 16 is not a multiple of 32 (mma.sync m16n8k32 on 8-bit operands takes k in steps of 32)
// SHORTK-NOT: mma.sync
@tensorcore
kernel short_k(A: tensor<i8>[M, K], B: tensor<i8>[K, N], C: tensor<i32>[M, N]) {
  var acc: tile<i32>[64, 64] = 0
  for k in range(0, K, 16) {
    acc += dot(A[0 :+ 64, k :+ 16], B[k :+ 16, 0 :+ 64])
  }
  C[0 :+ 64, 0 :+ 64] = acc
}
