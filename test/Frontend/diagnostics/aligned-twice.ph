// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-twice.ph:7:18: error: 'M' is already aligned
// CHECK-NEXT: @aligned(M = 32, M = 64)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@aligned(M = 32, M = 64)
kernel k(A: tensor<f32>[M]) {
}
