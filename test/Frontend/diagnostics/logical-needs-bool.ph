// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: logical-needs-bool.ph:8:13: error: '&&' needs bool operands, got i32 and i32
// CHECK-NEXT: let a = n && n
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = n && n
}
