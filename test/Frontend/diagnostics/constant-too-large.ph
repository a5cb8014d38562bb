// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: constant-too-large.ph:8:31: error: integer constant expression is too large
// CHECK-NEXT: let a = 9223372036854775807 * 9223372036854775807 * 4
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 9223372036854775807 * 9223372036854775807 * 4
}
