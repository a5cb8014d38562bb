// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: constant-overflow.ph:8:31: error: constant expression overflows i64 (its value is 9223372036854775808)
// CHECK-NEXT: let a = 9223372036854775807 + 1
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 9223372036854775807 + 1
}
