// numpy's and Triton's max(a, b) is an elementwise maximum; here max(x, axis) reduces.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: habit-max.ph:[[@LINE+10]]:17: error: 'max(x, axis)' reduces a tile along an axis; for the elementwise maximum of two values write tmax(a, b)
// CHECK-NEXT: Y[0 :+ 128] = max(x, 0.0)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK: habit-max.ph:[[@LINE+8]]:11: error: 'min(x, axis)' reduces a tile along an axis; for the elementwise minimum of two values write tmin(a, b)
// CHECK: habit-max.ph:[[@LINE+8]]:11: error: 'max(x, axis)' reduces a tile along an axis; for the elementwise maximum of two values write tmax(a, b)
// CHECK-NOT: error:
kernel k(X: tensor<f32>[N], Y: tensor<f32>[N], Z: tensor<f32>[N, N]) {
  let x = X[0 :+ 128]
  let z = Z[0 :+ 16, 0 :+ 16]
  let rows = max(z, 1)
  Y[0 :+ 128] = max(x, 0.0)
  let b = min(x, x)
  let s = max(1.0, 2.0)
}
