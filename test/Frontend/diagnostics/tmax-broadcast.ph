// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: tmax-broadcast.ph:8:11: error: the operands of 'tmax' do not broadcast: tile<f32>[4, 8], tile<f32>[8, 4]
// CHECK-NEXT: let a = tmax(A[0 :+ 4, 0 :+ 8], A[0 :+ 8, 0 :+ 4])
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = tmax(A[0 :+ 4, 0 :+ 8], A[0 :+ 8, 0 :+ 4])
}
