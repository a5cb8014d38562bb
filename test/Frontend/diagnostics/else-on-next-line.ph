// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: else-on-next-line.ph:10:3: error: 'else' must follow the '}' of the if block on the same line
// CHECK-NEXT: else {
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  if n > 0 {
  }
  else {
  }
}
