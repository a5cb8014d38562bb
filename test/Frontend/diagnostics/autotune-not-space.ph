// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: autotune-not-space.ph:7:11: error: expected 'NAME in [values]' in @autotune
// CHECK-NEXT: @autotune(TM = 32)
// CHECK-NEXT: {{^ *}}^~{{$}}
// CHECK-NOT: error:
@autotune(TM = 32)
kernel k() {
}
