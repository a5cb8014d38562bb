// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-float.ph:7:9: error: @launch threads expects an integer, got 256.0
// CHECK-NEXT: @launch(256.0)
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
@launch(256.0)
kernel k() {
}
