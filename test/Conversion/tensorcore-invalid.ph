// @tensorcore dots the tensor cores cannot run are located errors naming the rule.
// RUN: not phobos compile %s --kernel=f32_operands --emit=gpu 2>&1 | FileCheck %s --check-prefix=F32 --implicit-check-not=Traceback
// RUN: not phobos compile %s --kernel=thin --emit=gpu 2>&1 | FileCheck %s --check-prefix=THIN --implicit-check-not=Traceback
// RUN: not phobos compile %s --kernel=short_k --emit=gpu 2>&1 | FileCheck %s --check-prefix=SHORTK --implicit-check-not=Traceback

// F32: tensorcore-invalid.ph:[[@LINE+5]]:12: error: {{.*}}@tensorcore: a dot of f32 x f32 into f32 has no tensor-core instruction here (mma.sync takes f16 x f16 or bf16 x bf16 into f32
@tensorcore
kernel f32_operands(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 16) {
    acc += dot(A[0 :+ 64, k :+ 16], B[k :+ 16, 0 :+ 64])
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
