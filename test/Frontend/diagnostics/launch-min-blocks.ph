// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-min-blocks.ph:7:14: error: @launch minBlocks must be positive, got 0
// CHECK-NEXT: @launch(256, 0)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@launch(256, 0)
kernel k() {
}
