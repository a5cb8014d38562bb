// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-not-a-dimension.ph:7:10: error: @aligned names 'Q', which is not a dimension of any tensor parameter
// CHECK-NEXT: @aligned(Q = 32)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@aligned(Q = 32)
kernel k(A: tensor<f32>[M]) {
}
