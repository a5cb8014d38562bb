// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-to-parameter.ph:11:3: error: cannot assign to 'x': it is a kernel parameter
// CHECK-NEXT: x = 1.0
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: assign-to-parameter.ph:10:62: note: declared here
// CHECK-NEXT: kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  x = 1.0
}
