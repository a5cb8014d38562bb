// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-not-positive.ph:7:14: error: @aligned tile must be positive, got 0
// CHECK-NEXT: @aligned(M = 0)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@aligned(M = 0)
kernel k(A: tensor<f32>[M]) {
}
