// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-negative.ph:7:14: error: @aligned tile must be positive, got -16
// CHECK-NEXT: @aligned(M = -16)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@aligned(M = -16)
kernel k(A: tensor<f32>[M]) {
}
