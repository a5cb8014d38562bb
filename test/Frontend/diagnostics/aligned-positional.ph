// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-positional.ph:7:10: error: expected 'DIM = tile' in @aligned
// CHECK-NEXT: @aligned(32)
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@aligned(32)
kernel k(A: tensor<f32>[M]) {
}
