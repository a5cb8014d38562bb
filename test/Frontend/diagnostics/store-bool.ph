// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: store-bool.ph:8:13: error: cannot store bool values into 'B', a tensor of f32
// CHECK-NEXT: B[0, 0] = true
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  B[0, 0] = true
}
