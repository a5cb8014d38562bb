// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: sum-axis-range.ph:8:34: error: axis 2 is out of range for tile<f32>[4, 4]
// CHECK-NEXT: let a = sum(A[0 :+ 4, 0 :+ 4], 2)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = sum(A[0 :+ 4, 0 :+ 4], 2)
}
