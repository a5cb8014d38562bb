// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: aligned-empty.ph:7:1: error: @aligned needs at least one 'DIM = tile'
// CHECK-NEXT: @aligned()
// CHECK-NEXT: {{^ *}}^~~~~~~~{{$}}
// CHECK-NOT: error:
@aligned()
kernel k(A: tensor<f32>[M]) {
}
