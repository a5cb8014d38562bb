// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-whole-runtime-extent.ph:8:13: error: ':' takes the whole dimension, which needs a compile-time extent; dimension 0 of 'A' is the runtime extent 'M'
// CHECK-NEXT: let a = A[:, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[:, 0 :+ 32]
}
