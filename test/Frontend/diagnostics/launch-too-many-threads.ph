// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-too-many-threads.ph:7:9: error: @launch threads must be at most 1024, got 2048
// CHECK-NEXT: @launch(2048)
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
@launch(2048)
kernel k() {
}
