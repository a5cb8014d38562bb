// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: store-element-type.ph:8:25: error: cannot store f32 values into 'B', a tensor of f16 (convert with f16(...))
// CHECK-NEXT: B[0 :+ 32, 0 :+ 32] = A[0 :+ 32, 0 :+ 32]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f16>[M, N]) {
  B[0 :+ 32, 0 :+ 32] = A[0 :+ 32, 0 :+ 32]
}
