// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-max-regs-too-many.ph:7:17: error: @launch maxRegs must be between 16 and 255 registers per thread (PTX .maxnreg), got 256
// CHECK-NEXT: @launch(128, 1, 256)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@launch(128, 1, 256)
kernel k() {
}
