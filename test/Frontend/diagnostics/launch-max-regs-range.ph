// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-max-regs-range.ph:7:34: error: @launch maxRegs must be between 16 and 255 registers per thread (PTX .maxnreg), got 8
// CHECK-NEXT: @launch(threads = 256, maxRegs = 8)
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@launch(threads = 256, maxRegs = 8)
kernel k() {
}
