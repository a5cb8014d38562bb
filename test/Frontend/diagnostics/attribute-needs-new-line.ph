// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: attribute-needs-new-line.ph:7:11: error: expected a new line after '@pipeline', got 'foo'
// CHECK-NEXT: @pipeline foo
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@pipeline foo
kernel k() {
}
