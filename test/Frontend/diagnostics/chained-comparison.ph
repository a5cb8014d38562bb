// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: chained-comparison.ph:8:17: error: comparisons cannot be chained; combine them with '&&'
// CHECK-NEXT: let a = 1 < 2 < 3
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 1 < 2 < 3
}
