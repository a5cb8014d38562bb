// RUN: not phobos check %s -D TQ=32 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: define-unknown.ph:8:8: error: -D TQ=32 does not name an @autotune constant of any kernel
// CHECK-NEXT: kernel k() {
// CHECK-NEXT: {{^ *}}^{{$}}
// CHECK-NOT: error:
@autotune(TM in [32, 128])
kernel k() {
}
