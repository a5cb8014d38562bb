// qdot_t / qmma_t on the GPU: each 32-element block's i8 dot is an ordinary tile.dot, so under
// @tensorcore a [64, 64] tile's blocks run mma.sync m16n8k32 .s32.s8.s8.s32 (A and W by
// ldmatrix: both stored [rows][k]), and without it the same loop runs on CUDA cores. The
// scales are f32 loads; the scale product, the term and the sum are each rounded (mul.rn,
// add.rn: never contracted into an fma), in the order the interpreter computes.
// REQUIRES: ptxas
// RUN: phobos compile %s --kernel qmma_tc --chip sm_90 --emit=ptx | FileCheck %s --check-prefix=TC
// RUN: phobos compile %s --kernel qmma_cuda --chip sm_90 --emit=ptx | FileCheck %s --check-prefix=CUDA
// RUN: phobos compile %s --kernel qdot --chip sm_90 --emit=ptx | FileCheck %s --check-prefix=CUDA
// RUN: phobos compile %s --kernel qmma_tc --chip sm_90 --emit=contract | FileCheck %s --check-prefix=CONTRACT
// RUN: phobos compile %s --kernel qmma_tc --chip sm_90 --emit=cubin -o %t.cubin

// TC-LABEL: .entry qmma_tc
// TC-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// TC-DAG: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// TC-DAG: cvt.rn.f32.s32
// TC-DAG: mul.rn.f32
// TC-DAG: add.rn.f32
// TC-NOT: fma.rn.f32

// CUDA-NOT: mma.sync
// CUDA:     cvt.rn.f32.s32
// CUDA-NOT: mma.sync

// CONTRACT: "instruction": "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"

@autotune(TM in [64], TN in [64])
@launch(128)
@tensorcore
kernel qmma_tc(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[KB, N],
               C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  C[pm * TM :+ TM, pn * TN :+ TN] = qmma_t(A[pm * TM :+ TM, :], AS[pm * TM :+ TM, :],
                                           W[pn * TN :+ TN, :], WS[:, pn * TN :+ TN])
}

@autotune(TM in [64], TN in [64])
@launch(128)
kernel qmma_cuda(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[KB, N],
                 C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  C[pm * TM :+ TM, pn * TN :+ TN] = qmma_t(A[pm * TM :+ TM, :], AS[pm * TM :+ TM, :],
                                           W[pn * TN :+ TN, :], WS[:, pn * TN :+ TN])
}

@autotune(TN in [32])
@launch(128)
kernel qdot(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[N, KB],
            C: tensor<f32>[M, N]) {
  let pn = ctx.block.x
  C[0 :+ 1, pn * TN :+ TN] = qdot_t(A[0 :+ 1, :], AS[0 :+ 1, :], W[pn * TN :+ TN, :], WS[pn * TN :+ TN, :])
}
