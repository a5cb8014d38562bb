// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: ctx-field.ph:8:21: error: 'ctx.block' has no field 'w' (expected x, y or z)
// CHECK-NEXT: let a = ctx.block.w
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = ctx.block.w
}
