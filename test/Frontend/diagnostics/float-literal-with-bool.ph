// A float literal with an integer goes to the float (see ../mixed-precision.ph);
// with a bool it is an error.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: float-literal-with-bool.ph:10:19: error: cannot combine a float literal with bool in '+'
// CHECK-NEXT: let a = (n > 0) + 1.5
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = (n > 0) + 1.5
  let b = n + 1.5
}
