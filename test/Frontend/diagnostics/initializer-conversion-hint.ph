// A declared number is initialised from any number (converted), but not from a
// bool: the error names the conversion to write.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: initializer-conversion-hint.ph:10:16: error: cannot initialize 'a' of type i32 with a value of type bool (convert with i32(...))
// CHECK-NEXT: let a: i32 = ctx.block.x > 0
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a: i32 = ctx.block.x > 0
  let b: i32 = ctx.block.x
}
