// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: unterminated-block.ph:12:1: error: expected '}' at the end of the block
// CHECK-EMPTY:
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: unterminated-block.ph:10:18: note: the block starts here
// CHECK-NEXT: kernel k(x: f32) {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k(x: f32) {
  let y = x
