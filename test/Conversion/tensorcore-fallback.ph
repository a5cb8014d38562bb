// @tensorcore dots the tensor cores cannot run are located errors naming the rule.
// RUN: not phobos compile %s --kernel=bf16_accumulator --emit=gpu 2>&1 | FileCheck %s --check-prefix=BF16ACC --implicit-check-not=Traceback
// RUN: not phobos compile %s --kernel=tf32_short_k --emit=gpu 2>&1 | FileCheck %s --check-prefix=TF32K --implicit-check-not=Traceback
// RUN: not phobos compile %s --kernel=thin --emit=gpu 2>&1 | FileCheck %s --check-prefix=THIN --implicit-check-not=Traceback
// RUN: not phobos compile %s --kernel=short_k --emit=gpu 2>&1 | FileCheck %s --check-prefix=SHORTK --implicit-check-not=Traceback

// BF16ACC: tensorcore-invalid.ph:[[@LINE+5]]:12: error: {{.*}}@tensorcore: a dot of bf16 x bf16 into bf16 has no tensor-core instruction here (mma.sync takes f16 x f16 into f32 or f16, bf16 x bf16 into f32, and f32 x f32 into f32 as tf32
@tensorcore
kernel bf16_accumulator(A: tensor<bf16>[M, K], B: tensor<bf16>[K, N], C: tensor<bf16>[M, N]) {
  var acc: tile<bf16>[64, 64] = 0.0
  for k in range(0, K, 16) {
    acc += dot(A[0 :+ 64, k :+ 16], B[k :+ 16, 0 :+ 64])
  }
  C[0 :+ 64, 0 :+ 64] = acc
}

// TF32K: tensorcore-invalid.ph:[[@LINE+5]]:12: error: {{.*}}@tensorcore: the reduced extent 4 is not a multiple of 8 (mma.sync m16n8k8 on tf32 takes k in steps of 8)
@tensorcore
kernel tf32_short_k(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 4) {
    acc += dot(A[0 :+ 64, k :+ 4], B[k :+ 4, 0 :+ 64])
  }
  C[0 :+ 64, 0 :+ 64] = acc
}

// THIN: tensorcore-invalid.ph:[[@LINE+6]]:12: error: {{.*}}@tensorcore: the [8, 64] accumulator does not split into m16 x n8 tiles for every warp
@tensorcore
@launch(128)
kernel thin(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[8, 64] = 0.0
  for k in range(0, K, 16) {
    acc += dot(A[0 :+ 8, k :+ 16], B[k :+ 16, 0 :+ 64])
  }
  C[0 :+ 8, 0 :+ 64] = acc
}

// SHORTK: tensorcore-invalid.ph:[[@LINE+5]]:12: error: {{.*}}@tensorcore: the reduced extent 8 is not a multiple of 16 (mma.sync m16n8k16 takes k in steps of 16)
@tensorcore
kernel short_k(A: tensor<f16>[M, K], B: tensor<f16>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 8) {
    acc += dot(A[0 :+ 64, k :+ 8], B[k :+ 8, 0 :+ 64])
  }
  C[0 :+ 64, 0 :+ 64] = acc
}
