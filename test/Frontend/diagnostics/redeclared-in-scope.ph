// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: redeclared-in-scope.ph:12:7: error: 'a' is already declared in this scope (as a 'let' binding)
// CHECK-NEXT: var a = 2
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: redeclared-in-scope.ph:11:7: note: the previous declaration is here
// CHECK-NEXT: let a = 1
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = 1
  var a = 2
}
