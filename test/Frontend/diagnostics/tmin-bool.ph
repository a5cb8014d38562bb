// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tmin-bool.ph:8:11: error: 'tmin' needs numeric operands, got bool and bool
// CHECK-NEXT: let a = tmin(true, false)
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = tmin(true, false)
}
