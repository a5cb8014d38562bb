// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: void-as-value.ph:8:11: error: 'barrier()' does not return a value
// CHECK-NEXT: let a = barrier()
// CHECK-NEXT: {{^ *}}^~~~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = barrier()
}
