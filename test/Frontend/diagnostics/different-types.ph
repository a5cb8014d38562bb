// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: different-types.ph:8:13: error: operands of '+' have different types: i32 and index (convert one with f32(...), i32(...), ...)
// CHECK-NEXT: let a = n + ctx.block.x
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = n + ctx.block.x
}
