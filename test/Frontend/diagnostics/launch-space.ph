// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-space.ph:7:9: error: @launch takes (threads[, minBlocks[, maxRegs]]), not a search space
// CHECK-NEXT: @launch(T in [128, 256])
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@launch(T in [128, 256])
kernel k() {
}
