// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: program-id-dimension.ph:8:22: error: program_id expects the constant 0, 1 or 2, got 3
// CHECK-NEXT: let a = program_id(3)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = program_id(3)
}
