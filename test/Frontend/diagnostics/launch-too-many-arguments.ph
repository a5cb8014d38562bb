// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-too-many-arguments.ph:7:21: error: @launch takes at most 3 arguments (threads, minBlocks, maxRegs), got 4
// CHECK-NEXT: @launch(256, 1, 64, 3)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@launch(256, 1, 64, 3)
kernel k() {
}
