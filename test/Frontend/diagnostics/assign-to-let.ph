// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: assign-to-let.ph:12:3: error: cannot assign to 'a': it is declared with 'let' (use 'var' for a mutable variable)
// CHECK-NEXT: a = 2
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: assign-to-let.ph:11:7: note: declared here
// CHECK-NEXT: let a = 1
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 1
  a = 2
}
