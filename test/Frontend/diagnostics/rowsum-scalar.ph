// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: rowsum-scalar.ph:8:18: error: 'rowsum' expects a tile, got f32
// CHECK-NEXT: let a = rowsum(x)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = rowsum(x)
}
