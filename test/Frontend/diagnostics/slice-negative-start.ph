// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-negative-start.ph:8:13: error: slice start must not be negative, got -4
// CHECK-NEXT: let a = A[-4 :+ 4, 0 :+ 4]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[-4 :+ 4, 0 :+ 4]
}
