// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: float-literal-too-large.ph:8:17: error: float literal 1e400 is too large (the largest finite float is 1.79769e+308)
// CHECK-NEXT: A[0, 0] = x * 1e400
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  A[0, 0] = x * 1e400
}
