// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: store-shape.ph:8:25: error: cannot store a tile of shape [16, 32] into a slice of shape [32, 32]
// CHECK-NEXT: B[0 :+ 32, 0 :+ 32] = A[0 :+ 16, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  B[0 :+ 32, 0 :+ 32] = A[0 :+ 16, 0 :+ 32]
}
