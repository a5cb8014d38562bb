// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: builtin-as-value.ph:8:11: error: 'exp' is a builtin function; call it as exp(...)
// CHECK-NEXT: let a = exp
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = exp
}
