// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-type.ph:9:7: error: cannot assign a value of type bool to 'a' of type f32
// CHECK-NEXT: a = true
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  var a = 1.0
  a = true
}
