// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-static-extent.ph:8:15: error: @aligned promises that 'TM' is a multiple of 64, but it is the constant 32
// CHECK-NEXT: @aligned(TM = 64)
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@autotune(TM in [32])
@aligned(TM = 64)
kernel k(A: tensor<f32>[TM]) {
}
