// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: kernel-redefined.ph:12:8: error: kernel 'k' is already defined
// CHECK-NEXT: kernel k() {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NEXT: kernel-redefined.ph:10:8: note: the first definition is here
// CHECK-NEXT: kernel k() {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
kernel k() {
}
kernel k() {
}
