// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-shape.ph:9:7: error: cannot assign a value of type tile<f32>[8, 4] to 'a' of type tile<f32>[4, 4]
// CHECK-NEXT: a = A[0 :+ 8, 0 :+ 4]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  var a = A[0 :+ 4, 0 :+ 4]
  a = A[0 :+ 8, 0 :+ 4]
}
