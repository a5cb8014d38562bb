// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: ctx-unknown.ph:8:15: error: 'ctx' has no field 'thread' (expected block or grid)
// CHECK-NEXT: let a = ctx.thread.x
// CHECK-NEXT: {{^ *}}^~~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = ctx.thread.x
}
