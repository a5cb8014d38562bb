// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: unknown-attribute.ph:7:1: error: unknown attribute '@foo' (expected one of @autotune, @launch, @aligned, @pipeline, @tensorcore, @persistent, @assert_coalesced, @fastmath, @checked)
// CHECK-NEXT: @foo
// CHECK-NEXT: {{^ *}}^~~~{{$}}
// CHECK-NOT: error:
@foo
kernel k() {
}
