// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: float-constant-range.ph:8:24: error: the constant 100000 is out of range for f16 (it would be infinite)
// CHECK-NEXT: let h = H[0 :+ 16] * 100000
// CHECK-NEXT: {{^ *}}^~~~~~{{$}}
// CHECK-NOT: error:
kernel k(H: tensor<f16>[N]) {
  let h = H[0 :+ 16] * 100000
}
