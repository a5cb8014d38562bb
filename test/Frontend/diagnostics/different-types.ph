// Numbers of different types meet (see ../mixed-precision.ph); a bool and a
// number do not, and the error says which conversion to write.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: different-types.ph:10:13: error: operands of '+' have different types: i32 and bool (convert the bool with i32(...))
// CHECK-NEXT: let a = n + (x > 0.0)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = n + (x > 0.0)
  let b = n + ctx.block.x
}
