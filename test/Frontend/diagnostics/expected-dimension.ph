// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: expected-dimension.ph:7:28: error: expected a dimension (a name or an integer), got '1.5'
// CHECK-NEXT: kernel k(A: tensor<f32>[M, 1.5]) {
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, 1.5]) {
}
