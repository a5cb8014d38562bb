// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-shape-broadcast.ph:9:7: error: cannot assign a value of type tile<f32>[8, 4] to 'r' of type tile<f32>[1, 4]
// CHECK-NEXT: r = A[0 :+ 8, 0 :+ 4]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  var r: tile<f32>[1, 4] = A[0 :+ 1, 0 :+ 4]
  r = A[0 :+ 8, 0 :+ 4]
}
