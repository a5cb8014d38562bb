// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tile-parameter.ph:7:13: error: kernel parameters cannot be tiles; pass a tensor<f32>[...] and slice it
// CHECK-NEXT: kernel k(t: tile<f32>[32]) {
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(t: tile<f32>[32]) {
}
