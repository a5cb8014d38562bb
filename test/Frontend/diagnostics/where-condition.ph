// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: where-condition.ph:8:17: error: the condition of 'where' must be bool, got f32
// CHECK-NEXT: let a = where(x, 1.0, 2.0)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = where(x, 1.0, 2.0)
}
