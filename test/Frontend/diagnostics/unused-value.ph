// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: unused-value.ph:8:3: error: the value of this expression is unused (assign it with 'let' or store it)
// CHECK-NEXT: x * 2.0
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  x * 2.0
}
