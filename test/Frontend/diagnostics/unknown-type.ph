// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: unknown-type.ph:7:13: error: unknown type 'float' (expected one of f16, bf16, f32, f64, f8e4m3, f8e5m2, i8, u8, i32, u32, i64, bool, tensor<T>[dims] or tile<T>[dims])
// CHECK-NEXT: kernel k(x: float) {
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
kernel k(x: float) {
}
