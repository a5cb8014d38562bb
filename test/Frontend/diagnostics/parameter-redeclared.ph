// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: parameter-redeclared.ph:10:18: error: 'x' is already declared as a parameter
// CHECK-NEXT: kernel k(x: f32, x: i32) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: parameter-redeclared.ph:10:10: note: declared here
// CHECK-NEXT: kernel k(x: f32, x: i32) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(x: f32, x: i32) {
}
