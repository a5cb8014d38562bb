// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: else-without-if.ph:8:3: error: 'else' without a matching 'if' (it must follow the '}' of the if block on the same line)
// CHECK-NEXT: else {
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  else {
  }
}
