// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-unknown-constant.ph:8:14: error: unknown constant 'TQ' in @aligned (expected a literal or an @autotune constant)
// CHECK-NEXT: @aligned(M = TQ)
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@autotune(TM in [32])
@aligned(M = TQ)
kernel k(A: tensor<f32>[M]) {
}
