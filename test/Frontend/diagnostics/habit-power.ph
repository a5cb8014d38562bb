// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: habit-power.ph:[[@LINE+6]]:13: error: there is no power operator '**' yet; write the product (x * x, x * x * x) or, for x > 0, exp(y * log(x))
// CHECK-NEXT: let y = x ** 2
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
kernel k(X: tensor<f32>[N]) {
  let x = X[0 :+ 128]
  let y = x ** 2
}
