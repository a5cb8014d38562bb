// A keyword argument given twice is an error at the second (it was accepted, the last one kept).
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: keyword-twice.ph:[[@LINE+4]]:48: error: keyword argument 'sem' is given twice
// CHECK-NOT: error:
@launch(128)
kernel k(Y: tensor<f32>[N]) {
  atomic_add(Y[0 :+ 16], 1.0, sem = "relaxed", sem = "release")
}
