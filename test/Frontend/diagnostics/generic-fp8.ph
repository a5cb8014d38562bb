// An fp8 tile passed for a generic fn's number type says why fp8 does not fit (it said "'T' of 'q'
// is a number type, got tile<f8e5m2>[...]").
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: generic-fp8.ph:[[@LINE+7]]:27: error: 'T' of 'q' stands for a number type, but the argument is tile<f8e5m2>[64, 32] (fp8 is for storage and conversion: convert to f32 first, as in f32(x))
// CHECK-NOT: error:
fn q<T>(x: tile<T>[64, 32]) -> tile<T>[64, 32] {
  return x
}
@launch(128)
kernel k(X: tensor<f8e5m2>[M, K], Y: tensor<f8e5m2>[M, K]) {
  Y[0 :+ 64, 0 :+ 32] = q(X[0 :+ 64, 0 :+ 32])
}
