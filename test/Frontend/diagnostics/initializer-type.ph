// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: initializer-type.ph:8:28: error: cannot initialize 'a' of type tile<f32>[4, 4] with a value of type tile<f32>[8, 4]
// CHECK-NEXT: let a: tile<f32>[4, 4] = A[0 :+ 8, 0 :+ 4]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a: tile<f32>[4, 4] = A[0 :+ 8, 0 :+ 4]
}
