// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: dot-element-types.ph:8:11: error: 'dot' operands have different element types: tile<f32>[16, 16] and tile<f16>[16, 16]
// CHECK-NEXT: let c = dot(A[0 :+ 16, 0 :+ 16], H[0 :+ 16, 0 :+ 16])
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], H: tensor<f16>[M, N]) {
  let c = dot(A[0 :+ 16, 0 :+ 16], H[0 :+ 16, 0 :+ 16])
}
