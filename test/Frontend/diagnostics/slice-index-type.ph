// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-index-type.ph:8:13: error: slice indices must be integer scalars, got f32
// CHECK-NEXT: let a = A[x :+ 4, 0 :+ 4]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[x :+ 4, 0 :+ 4]
}
