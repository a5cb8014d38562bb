// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: expected-kernel-after-attributes.ph:8:1: error: expected 'kernel' after the attributes, got 'foo'
// CHECK-NEXT: foo k() {
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@pipeline
foo k() {
}
