// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: store-shape-broadcast.ph:8:23: error: cannot store a tile of shape [8, 4] into a slice of shape [1, 4]
// CHECK-NEXT: B[0 :+ 1, 0 :+ 4] = A[0 :+ 8, 0 :+ 4]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  B[0 :+ 1, 0 :+ 4] = A[0 :+ 8, 0 :+ 4]
}
