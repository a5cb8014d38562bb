// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-to-expression.ph:8:9: error: cannot assign to this expression (expected a name or a slice such as 'Y[i :+ 32]' before '=')
// CHECK-NEXT: n + 1 = 2
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  n + 1 = 2
}
