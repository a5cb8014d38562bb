// break/continue outside a loop, return with a value, and grid_barrier() that some
// CTAs may not reach (issue 23, "Bad input"): located errors, each with what is expected.
// RUN: not phobos check %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=Traceback

kernel k(X: tensor<f32>[N], n: i32) {
  // CHECK: exits.ph:[[@LINE+2]]:3: error: 'break' outside a loop (it belongs to the innermost 'for' or 'while')
  // CHECK-NEXT: {{^}}  break
  break
  if n > 0 {
    // CHECK: exits.ph:[[@LINE+1]]:5: error: 'continue' outside a loop
    continue
  }
  // CHECK: exits.ph:[[@LINE+1]]:10: error: a kernel returns no value: 'return' ends the CTA (store results into a tensor parameter)
  return X[0] + 1.0
}

@persistent
kernel p(X: tensor<f32>[N], n: i32) {
  let b = ctx.block.x
  // A loop whose trip count is the same in every CTA: fine.
  for i in range(0, n) {
    grid_barrier()
  }
  // CHECK: exits.ph:[[@LINE+3]]:5: error: grid_barrier() that some CTAs may not reach: every CTA of the grid must arrive, or the GPU hangs
  // CHECK: exits.ph:[[@LINE+1]]:6: note: this condition differs between CTAs
  if b == 0 {
    grid_barrier()
  }
  // CHECK: exits.ph:[[@LINE+3]]:5: error: grid_barrier() that some CTAs may not reach
  // CHECK: exits.ph:[[@LINE+1]]:18: note: the trip count of this loop differs between CTAs
  for t in range(b, 100, ctx.grid.x) {
    grid_barrier()
  }
  while X[0] > 0.0 {
    if b > 3 {
      break
    }
    // CHECK: exits.ph:[[@LINE+2]]:5: error: grid_barrier() that some CTAs may not reach
    // CHECK: exits.ph:[[@LINE-3]]:7: note: some CTAs may leave this iteration here and others not
    grid_barrier()
  }
  if b + 1 > n {
    return
  }
  // CHECK: exits.ph:[[@LINE+2]]:3: error: grid_barrier() that some CTAs may not reach
  // CHECK: exits.ph:[[@LINE-3]]:5: note: this 'return' is taken by some CTAs only
  grid_barrier()
}
