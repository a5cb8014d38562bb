// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: expected-kernel-top-level.ph:7:1: error: expected 'kernel', 'fn' or 'import' at the top level, got 'let'
// CHECK-NEXT: let x = 1
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK-NOT: error:
let x = 1
