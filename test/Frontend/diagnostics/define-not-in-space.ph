// RUN: not phobos check %s -D TM=48 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: define-not-in-space.ph:7:11: error: -D TM=48 is not in the @autotune space of 'TM': [32, 64, 128]
// CHECK-NEXT: @autotune(TM in [32, 128])
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@autotune(TM in [32, 128])
kernel k() {
}
