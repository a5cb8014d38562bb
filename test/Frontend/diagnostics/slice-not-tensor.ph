// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-not-tensor.ph:8:11: error: only tensor parameters can be sliced; 'x' is f32
// CHECK-NEXT: let a = x[0]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = x[0]
}
