// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: constant-does-not-fit.ph:8:15: error: integer constant 300 does not fit in i8
// CHECK-NEXT: let a = c + 300
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
kernel k(c: i8) {
  let a = c + 300
}
