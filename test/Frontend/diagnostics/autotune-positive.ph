// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: autotune-positive.ph:7:22: error: @autotune values must be positive, got 0
// CHECK-NEXT: @autotune(TM in [32, 0, 64])
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@autotune(TM in [32, 0, 64])
kernel k() {
}
