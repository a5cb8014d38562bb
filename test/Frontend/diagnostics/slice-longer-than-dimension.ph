// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: slice-longer-than-dimension.ph:8:13: error: a slice of 32 elements is longer than dimension 0 of 'A' (16)
// CHECK-NEXT: let a = A[0 :+ 32, 0 :+ 4]
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[16, N]) {
  let a = A[0 :+ 32, 0 :+ 4]
}
