// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: ctx-as-value.ph:8:15: error: 'ctx.grid' is not a value (use ctx.block.x/y/z or ctx.grid.x/y/z)
// CHECK-NEXT: let a = ctx.grid
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = ctx.grid
}
