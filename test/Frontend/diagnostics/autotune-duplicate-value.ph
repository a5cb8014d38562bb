// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: autotune-duplicate-value.ph:7:11: error: @autotune space of 'TM' lists a value twice: [32, 64, 32]
// CHECK-NEXT: @autotune(TM in [32, 64, 32])
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@autotune(TM in [32, 64, 32])
kernel k() {
}
