// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tensor-dimension-positive.ph:7:25: error: tensor dimensions must be positive, got 0
// CHECK-NEXT: kernel k(A: tensor<f32>[0, N]) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[0, N]) {
}
