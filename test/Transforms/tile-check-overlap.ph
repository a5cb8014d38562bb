// tile-check-overlap warns at a plain store that several CTAs may make to the same
// elements: its place does not depend on ctx.block along an axis that launches several
// CTAs (the issue's Y[0 :+ 1] += sum(...)), or slices step by less than their extent.
// A store under `if ctx.block.x == 0`, a store at ctx.block.x * TILE and atomics are not
// reported. The gpu stage runs it, so `phobos compile` warns.
// RUN: phobos compile %s --kernel total --emit=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOTAL
// RUN: phobos compile %s --kernel halo --emit=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=HALO
// RUN: phobos explain %s --kernel total | FileCheck %s --check-prefix=EXPLAIN
// RUN: phobos compile %s --kernel fine --emit=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=FINE --allow-empty

kernel total(X: tensor<f32>[N], Y: tensor<f32>[1]) {
  let s = ctx.block.x * 256
  Y[0 :+ 1] += sum(X[s :+ 256])
}

// TOTAL: tile-check-overlap.ph:13:3: warning: CTAs along grid axis x may store to the same elements of 'Y' (where it writes does not depend on ctx.block.x); plain stores from several CTAs race (the last write wins, read-modify-writes lose updates): store from one CTA, or accumulate with atomic_add

// EXPLAIN: store of 'Y'
// EXPLAIN: race: CTAs along grid axis x may store to the same elements (where it writes does not depend on ctx.block.x); use atomic_add

kernel halo(X: tensor<f32>[N], Y: tensor<f32>[N]) {
  Y[ctx.block.x * 128 :+ 256] = X[ctx.block.x * 128 :+ 256]
}

// HALO: tile-check-overlap.ph:22:3: warning: CTAs along grid axis x may store to the same elements of 'Y' (dimension 0 starts at ctx.block.x * 128, less than the slice's 256 elements there)

kernel fine(X: tensor<f32>[N], Y: tensor<f32>[N], T: tensor<f32>[1]) {
  let s = ctx.block.x * 256
  Y[s :+ 256] = X[s :+ 256]
  if ctx.block.x == 0 {
    Y[0 :+ 4] = X[0 :+ 4]
  }
  atomic_add(T[0], sum(X[s :+ 256]))
}

// FINE-NOT: warning

// Check mode: each reported store is marked tile.claim with its grid axis, and the lowering
// claims every element it writes for its CTA on the device (an `overlap` check); stores
// that are not reported claim nothing.
// RUN: phobos compile %s --kernel halo --emit=tile | phobos-opt -p 'builtin.module(tile-insert-checks{check=true},tile-check-overlap)' 2>/dev/null | FileCheck %s --check-prefix=CLAIM
// RUN: phobos compile %s --kernel halo --check --emit=gpu 2>&1 | FileCheck %s --check-prefix=CLAIMED
// RUN: phobos compile %s --kernel fine --check --emit=gpu 2>&1 | FileCheck %s --check-prefix=UNCLAIMED
// CLAIM: "tile.store_slice"{{.*}}tile.claim = "x"
// CLAIMED: llvm.func internal @__phobos_claim(%{{.*}}: i64) -> i32
// CLAIMED: gpu.func @halo
// CLAIMED: llvm.call @__phobos_claim
// UNCLAIMED-NOT: __phobos_claim
