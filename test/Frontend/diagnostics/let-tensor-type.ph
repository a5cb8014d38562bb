// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: let-tensor-type.ph:8:10: error: only kernel parameters can be tensors; 'let' and 'var' hold tiles and scalars
// CHECK-NEXT: let t: tensor<f32>[M] = 0.0
// CHECK-NEXT: {{^ *}}^~~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let t: tensor<f32>[M] = 0.0
}
