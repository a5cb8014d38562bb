// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: colon-needs-start.ph:8:15: error: expected ',' or ']' after ':' (a range needs a start, as in 'a : b')
// CHECK-NEXT: let a = A[: 4, 0]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = A[: 4, 0]
}
