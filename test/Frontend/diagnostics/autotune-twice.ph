// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: autotune-twice.ph:7:23: error: 'TM' is already autotuned
// CHECK-NEXT: @autotune(TM in [32], TM in [64])
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@autotune(TM in [32], TM in [64])
kernel k() {
}
