// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: parameter-and-dimension.ph:10:33: error: 'M' names both a parameter and a dimension
// CHECK-NEXT: kernel k(M: i32, A: tensor<f32>[M]) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: parameter-and-dimension.ph:10:10: note: the parameter is declared here
// CHECK-NEXT: kernel k(M: i32, A: tensor<f32>[M]) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(M: i32, A: tensor<f32>[M]) {
}
