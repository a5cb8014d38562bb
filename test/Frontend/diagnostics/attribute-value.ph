// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: attribute-value.ph:7:9: error: expected a literal or a name, got '*'
// CHECK-NEXT: @launch(*)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@launch(*)
kernel k() {
}
