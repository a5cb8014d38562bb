// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: transpose-rank.ph:8:21: error: 'transpose' expects a 2-D tile, got tile<f32>[32]
// CHECK-NEXT: let a = transpose(V[0 :+ 32])
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(V: tensor<f32>[N]) {
  let a = transpose(V[0 :+ 32])
}
