// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-registers-min-blocks.ph:7:17: error: @launch asks for 4 resident CTAs of 256 threads with 128 registers each, 131072 registers, more than the 65536 of a multiprocessor (at most 64 per thread with minBlocks 4)
// CHECK-NEXT: @launch(256, 4, 128)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@launch(256, 4, 128)
kernel k() {
}
