// Stores convert between numbers (see ../mixed-precision.ph), but not from a
// number to bool.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: store-element-type.ph:10:25: error: cannot store f32 values into 'B', a tensor of bool
// CHECK-NEXT: B[0 :+ 32, 0 :+ 32] = A[0 :+ 32, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<bool>[M, N], H: tensor<f16>[M, N]) {
  B[0 :+ 32, 0 :+ 32] = A[0 :+ 32, 0 :+ 32]
  H[0 :+ 32, 0 :+ 32] = A[0 :+ 32, 0 :+ 32]
}
