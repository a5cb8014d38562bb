// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: autotune-value-not-integer.ph:7:17: error: expected an integer
// CHECK-NEXT: @autotune(T in [1.5])
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
@autotune(T in [1.5])
kernel k() {
}
