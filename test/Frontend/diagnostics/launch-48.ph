// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-48.ph:7:9: error: @launch threads must be a multiple of 32, got 48
// CHECK-NEXT: @launch(48)
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@launch(48)
kernel k() {
}
