// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: cumsum-axis.ph:12:21: error: axis 2 is out of range for tile<f32>[16, 64]
// CHECK-NEXT: let a = cumsum(t, 2)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK: cumsum-axis.ph:13:21: error: the axis of 'cumsum' must be an integer constant
// CHECK: cumsum-axis.ph:14:11: error: 'cumsum' expects 1 or 2 arguments, got 3
// CHECK: cumsum-axis.ph:15:18: error: 'cumsum' expects a tile, got f32
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, 64], n: i32, x: f32) {
  let t = A[0 :+ 16, 0 :+ 64]
  let a = cumsum(t, 2)
  let b = cumsum(t, n)
  let c = cumsum(t, 0, 1)
  let d = cumsum(x)
}
