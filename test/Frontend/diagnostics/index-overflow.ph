// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: index-overflow.ph:8:49: error: constant expression overflows i64 (its value is 18446744073709551616)
// CHECK-NEXT: let a = ctx.block.x * 0 + 4611686018427387904 * 4
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = ctx.block.x * 0 + 4611686018427387904 * 4
}
