// @pipeline(S): S stages per ring, 2 to 8, a literal or an @autotune constant.
// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: pipeline-depth.ph:[[@LINE+3]]:11: error: @pipeline takes 2 to 8 stages, got 1; at least two: one stage is read while the next is copied
// CHECK-NEXT: @pipeline(1)
// CHECK-NEXT: {{^ *}}^{{$}}
@pipeline(1)
kernel one_stage() {
}
// CHECK: pipeline-depth.ph:[[@LINE+2]]:11: error: @pipeline takes 2 to 8 stages, the @autotune space of 'S' has 16; at least two
@autotune(S in [3, 4, 16])
@pipeline(S)
kernel too_deep() {
}
// CHECK: pipeline-depth.ph:[[@LINE+1]]:11: error: unknown constant 'STAGES' in @pipeline (expected a literal or an @autotune constant)
@pipeline(STAGES)
kernel unknown() {
}
// CHECK: pipeline-depth.ph:[[@LINE+1]]:11: error: @pipeline takes one argument, the number of stages: @pipeline(4)
@pipeline(2, 3)
kernel two() {
}
// CHECK-NOT: error:
