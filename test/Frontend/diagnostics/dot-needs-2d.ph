// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: dot-needs-2d.ph:9:15: error: 'dot' expects a 2-D tile, got tile<f32>[32]
// CHECK-NEXT: let a = dot(v, v)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(V: tensor<f32>[N]) {
  let v = V[0 :+ 32]
  let a = dot(v, v)
}
