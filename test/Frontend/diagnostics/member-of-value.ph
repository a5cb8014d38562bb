// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: member-of-value.ph:8:13: error: a value of type f32 has no field 'shape'
// CHECK-NEXT: let a = x.shape
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = x.shape
}
