// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-multiple-of-32.ph:7:9: error: @launch threads must be a multiple of 32, got 100
// CHECK-NEXT: @launch(100)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@launch(100)
kernel k() {
}
