// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: unknown-element-type.ph:7:20: error: unknown element type 'f8' (expected one of f16, bf16, f32, f64, f8e4m3, f8e5m2, i8, u8, i32, u32, i64, bool)
// CHECK-NEXT: kernel k(A: tensor<f8>[M]) {
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f8>[M]) {
}
