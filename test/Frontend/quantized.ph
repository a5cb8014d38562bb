// qdot_t and qmma_t (the original's Q8_0 contractions) become a loop over K in 32-element
// blocks of ordinary tile ops: per block an i8 dot_t into i32 (a transpose feeding tile.dot,
// as dot_t builds it), converted to f32 and scaled by the outer product of the block's scale
// column and row, added to an f32 accumulator carried by the loop. Under `:` the loop runs
// to the runtime extent of K; a K slice runs to its length from its start.
// RUN: phobos compile %s --kernel qdot --emit=tile | FileCheck %s --check-prefix=QDOT
// RUN: phobos compile %s --kernel qmma --emit=tile | FileCheck %s --check-prefix=QMMA
// RUN: phobos compile %s --kernel split --emit=tile | FileCheck %s --check-prefix=SPLIT
// RUN: not phobos check %S/Inputs/quantized-errors.ph 2>&1 | FileCheck %s --check-prefix=ERR

@autotune(TN in [8])
kernel qdot(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[N, KB],
            C: tensor<f32>[M, N]) {
  let pn = program_id(0)
  C[0 :+ 1, pn * TN :+ TN] = qdot_t(A[0 :+ 1, :], AS[0 :+ 1, :], W[pn * TN :+ TN, :], WS[pn * TN :+ TN, :])
}

// QDOT-LABEL: func.func @qdot
// QDOT:      %[[K:.*]] = memref.dim %arg0, %c1
// QDOT:      %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<1x8xf32>
// QDOT:      %[[LOOP:.*]] = scf.for %[[T:.*]] = %{{.*}} to %[[K]] step %c32 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<1x8xf32>)
// QDOT:        %[[B:.*]] = arith.divui %[[T]], %c32 : index
// QDOT:        %[[A:.*]] = "tile.load_slice"(%arg0, {{.*}}) : (memref<?x?xi8>, index, index) -> tensor<1x32xi8>
// QDOT:        %[[W:.*]] = "tile.load_slice"(%arg2, {{.*}}) : (memref<?x?xi8>, index, index) -> tensor<8x32xi8>
// QDOT:        %[[WT:.*]] = "tile.transpose"(%[[W]]) {permutation = array<i64: 1, 0>} : (tensor<8x32xi8>) -> tensor<32x8xi8>
// QDOT:        %[[P:.*]] = "tile.dot"(%[[A]], %[[WT]], %{{.*}}) : (tensor<1x32xi8>, tensor<32x8xi8>, tensor<1x8xi32>) -> tensor<1x8xi32>
// QDOT:        "tile.load_slice"(%arg1, {{.*}}) : (memref<?x?xf32>, index, index) -> tensor<1x1xf32>
// QDOT:        %[[SW:.*]] = "tile.load_slice"(%arg3, {{.*}}) : (memref<?x?xf32>, index, index) -> tensor<8x1xf32>
// QDOT:        "tile.transpose"(%[[SW]]) {{.*}} -> tensor<1x8xf32>
// QDOT:        %[[S:.*]] = arith.mulf %{{.*}}, %{{.*}} : tensor<1x8xf32>
// QDOT:        %[[PF:.*]] = arith.sitofp %[[P]] : tensor<1x8xi32> to tensor<1x8xf32>
// QDOT:        %[[TERM:.*]] = arith.mulf %[[PF]], %[[S]] : tensor<1x8xf32>
// QDOT:        %[[SUM:.*]] = arith.addf %[[ACC]], %[[TERM]] : tensor<1x8xf32>
// QDOT:        scf.yield %[[SUM]] : tensor<1x8xf32>
// QDOT:      "tile.store_slice"(%[[LOOP]], %arg4

@autotune(TM in [16], TN in [16])
kernel qmma(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[KB, N],
            C: tensor<f32>[M, N]) {
  let pm = program_id(0)
  let pn = program_id(1)
  C[pm * TM :+ TM, pn * TN :+ TN] = qmma_t(A[pm * TM :+ TM, :], AS[pm * TM :+ TM, :],
                                           W[pn * TN :+ TN, :], WS[:, pn * TN :+ TN])
}

// The weight scales block-major: a [1, TN] row of WS, no transpose.
// QMMA-LABEL: func.func @qmma
// QMMA:      scf.for
// QMMA:        "tile.dot"({{.*}}) : (tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32>) -> tensor<16x16xi32>
// QMMA:        "tile.load_slice"(%arg1, {{.*}}) -> tensor<16x1xf32>
// QMMA-NEXT:   "tile.load_slice"(%arg3, {{.*}}) -> tensor<1x16xf32>
// QMMA-NOT:    "tile.transpose"
// QMMA:        arith.mulf {{.*}} : tensor<16x16xf32>
// QMMA:        scf.yield

@autotune(TN in [8], SLICE in [128], SB in [4])
kernel split(A: tensor<i8>[M, K], AS: tensor<f32>[M, KB], W: tensor<i8>[N, K], WS: tensor<f32>[N, KB],
             P: tensor<f32>[S, N]) {
  let pn = program_id(0)
  let ps = program_id(1)
  P[ps :+ 1, pn * TN :+ TN] = qdot_t(A[0 :+ 1, ps * SLICE :+ SLICE], AS[0 :+ 1, ps * SB :+ SB],
                                     W[pn * TN :+ TN, ps * SLICE :+ SLICE], WS[pn * TN :+ TN, ps * SB :+ SB])
}

// A K slice: the loop runs over its 128 elements, offset by the slice's start.
// SPLIT-LABEL: func.func @split
// SPLIT:      %[[START:.*]] = arith.muli %{{.*}}, %c128
// SPLIT:      scf.for %[[T:.*]] = %c0{{.*}} to %c128{{.*}} step %c32
// SPLIT:        arith.addi %[[START]], %[[T]] : index

// ERR: quantized-errors.ph:5:35: error: the a_scales of 'qdot_t' cover 4 rows of its output, but a has 1
// ERR: quantized-errors.ph:6:33: error: a K slice of 'qdot_t' must be a whole number of 32-element Q8_0 blocks; the a slice has 48 elements
// ERR: quantized-errors.ph:7:47: error: the w of 'qmma_t' must be a slice of a tensor<i8> parameter, [rows, K]; 'WS' is tensor<f32>[N, KB]
