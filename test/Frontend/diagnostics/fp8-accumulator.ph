// `acc += dot(a, b)` sums in the dot itself, in the accumulator's type; a dot of fp8 operands
// sums only into f32, so an f16 or bf16 accumulator is a located error (it was an internal
// error: the front end built a tile.dot of fp8 into bf16, which the dialect refuses).
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: fp8-accumulator.ph:[[@LINE+6]]:10: error: 'acc += dot_t(...)' sums in the dot itself, in acc's type bf16, but a dot of f8e4m3 operands sums only into f32: declare 'acc' as tile<f32>[...] and convert it once after the loop (or write acc += bf16(dot_t(...)))
// CHECK-NOT: error:
@tensorcore
@launch(128)
kernel k(A: tensor<f8e4m3>[M, K], B: tensor<f8e4m3>[N, K], C: tensor<bf16>[M, N]) {
  var acc: tile<bf16>[64, 64] = 0.0
  acc += dot_t(A[0 :+ 64, 0 :+ 32], B[0 :+ 64, 0 :+ 32])
  C[0 :+ 64, 0 :+ 64] = acc
}

// An f32 accumulator, or the dot converted before the sum, is fine.
@tensorcore
@launch(128)
kernel fine(A: tensor<f8e5m2>[M, K], B: tensor<f8e5m2>[N, K], C: tensor<f16>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  var h: tile<f16>[64, 64] = 0.0
  acc += dot_t(A[0 :+ 64, 0 :+ 32], B[0 :+ 64, 0 :+ 32])
  h += f16(dot_t(A[0 :+ 64, 0 :+ 32], B[0 :+ 64, 0 :+ 32]))
  C[0 :+ 64, 0 :+ 64] = acc + f32(h)
}
