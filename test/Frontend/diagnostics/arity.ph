// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: arity.ph:8:11: error: 'exp' expects 1 argument, got 2
// CHECK-NEXT: let a = exp(x, x)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = exp(x, x)
}
