// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-float.ph:7:14: error: @aligned expects an integer, got 1.5
// CHECK-NEXT: @aligned(M = 1.5)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@aligned(M = 1.5)
kernel k(A: tensor<f32>[M]) {
}
