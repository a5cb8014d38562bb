// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: expected-end-of-statement.ph:8:13: error: expected the end of the statement (a new line or ';'), got 'let'
// CHECK-NEXT: let a = 1 let b = 2
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 1 let b = 2
}
