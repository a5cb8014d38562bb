// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: launch-unknown-keyword.ph:7:9: error: @launch has no argument 'warps' (expected threads, minBlocks, maxRegs)
// CHECK-NEXT: @launch(warps = 4)
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
@launch(warps = 4)
kernel k() {
}
