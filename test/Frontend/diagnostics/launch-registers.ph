// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-registers.ph:7:18: error: @launch maxRegs 255 with 1024 threads needs 261120 registers per CTA, more than the 65536 of a multiprocessor (at most 64 per thread)
// CHECK-NEXT: @launch(1024, 1, 255)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@launch(1024, 1, 255)
kernel k() {
}
