// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: grid-barrier-not-persistent.ph:8:3: error: grid_barrier() needs a @persistent kernel (all CTAs must be co-resident)
// CHECK-NEXT: grid_barrier()
// CHECK-NEXT: {{^ *}}^~~~~~~~~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  grid_barrier()
}
