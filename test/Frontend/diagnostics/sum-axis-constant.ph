// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: sum-axis-constant.ph:8:34: error: the axis of 'sum' must be an integer constant
// CHECK-NEXT: let a = sum(A[0 :+ 4, 0 :+ 4], n)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = sum(A[0 :+ 4, 0 :+ 4], n)
}
