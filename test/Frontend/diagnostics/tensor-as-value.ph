// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tensor-as-value.ph:8:11: error: tensor 'A' cannot be used as a value; read a slice of it such as 'A[i :+ 32]'
// CHECK-NEXT: let a = A
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A
}
