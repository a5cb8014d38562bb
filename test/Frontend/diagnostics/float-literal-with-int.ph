// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: float-literal-with-int.ph:8:13: error: cannot combine a float literal with i32 in '+'
// CHECK-NEXT: let a = n + 1.5
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = n + 1.5
}
