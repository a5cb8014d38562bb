// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: shadows-dimension.ph:11:7: error: 'M' is already declared in this kernel (as a dimension)
// CHECK-NEXT: let M = 4
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: shadows-dimension.ph:10:25: note: the previous declaration is here
// CHECK-NEXT: kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let M = 4
}
