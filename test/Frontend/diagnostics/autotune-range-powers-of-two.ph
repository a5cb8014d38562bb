// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: autotune-range-powers-of-two.ph:7:18: error: 'TM in [48, 256]' means the powers of two from 48 to 256, so both ends must be powers of two; 48 is not
// CHECK-NEXT: @autotune(TM in [48, 256])
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@autotune(TM in [48, 256])
kernel k() {
}
