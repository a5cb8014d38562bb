// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: integer-too-large.ph:8:11: error: integer literal 99999999999999999999 is too large (the limit is 9223372036854775807)
// CHECK-NEXT: let a = 99999999999999999999
// CHECK-NEXT: {{^ *}}^~~~~~~~~~~~~~~~~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 99999999999999999999
}
