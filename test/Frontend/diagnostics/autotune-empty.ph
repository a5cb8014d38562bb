// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: autotune-empty.ph:7:1: error: @autotune needs at least one 'NAME in [values]'
// CHECK-NEXT: @autotune
// CHECK-NEXT: {{^ *}}^~~~~~~~~{{$}}
// CHECK-NOT: error:
@autotune
kernel k() {
}
