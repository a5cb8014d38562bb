// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-resident-threads.ph:7:15: error: @launch minBlocks 4 with 1024 threads asks for 4096 resident threads, more than the 2048 of an sm_90 multiprocessor (at most 2 CTAs of 1024 threads)
// CHECK-NEXT: @launch(1024, 4)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@launch(1024, 4)
kernel k() {
}
