// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: expected-close-paren-params.ph:7:31: error: expected ')' after the parameters, got '{'
// CHECK-NEXT: kernel k(A: tensor<f32>[M, N] {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N] {
}
