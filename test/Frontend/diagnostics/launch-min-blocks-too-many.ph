// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-min-blocks-too-many.ph:7:14: error: @launch minBlocks must be at most 32 (the CTAs an sm_90 multiprocessor holds), got 40
// CHECK-NEXT: @launch(256, 40)
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@launch(256, 40)
kernel k() {
}
