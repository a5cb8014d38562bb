// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: nested-too-deeply.ph:8:43: error: expression is nested too deeply (more than 32 levels)
// CHECK-NEXT: let a = ((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = ((((((((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))))))))
}
