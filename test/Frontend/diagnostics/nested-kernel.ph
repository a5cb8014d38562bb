// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: nested-kernel.ph:8:3: error: expected '}' before 'kernel' (kernels cannot be nested)
// CHECK-NEXT: kernel j() {
// CHECK-NEXT: {{^ *}}^~~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  kernel j() {
  }
}
