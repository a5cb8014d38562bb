// @fastmath is a flag: an argument (say, a choice of fast-math flags) is an
// error at the argument, and a misspelt name is an unknown attribute that
// lists @fastmath among the known ones.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: fastmath-arguments.ph:14:11: error: @fastmath takes no arguments
// CHECK-NEXT: @fastmath(afn)
// CHECK-NEXT: {{^ *}}^~~{{$}}
// CHECK: fastmath-arguments.ph:18:1: error: unknown attribute '@fast_math' (expected one of {{.*}}, @fastmath, @checked)
// CHECK-NEXT: @fast_math
// CHECK-NEXT: {{^}}^~~~~~~~~~{{$}}
// CHECK-NOT: error:
// CHECK: 2 errors generated.
@fastmath(afn)
kernel k() {
}

@fast_math
kernel m() {
}
