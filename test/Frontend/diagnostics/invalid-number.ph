// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: invalid-number.ph:8:11: error: invalid number '12abc'
// CHECK-NEXT: let a = 12abc
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 12abc
}
