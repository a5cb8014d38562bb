// Under @checked (recorded as tile.checked on the kernel) a plain store that several CTAs
// may make to the same elements is an error at the store, where a kernel without it gets
// the warning of tile-check-overlap.ph; a @checked kernel whose stores do not overlap
// compiles quietly.
// RUN: phobos compile %s --kernel total --emit=tile | FileCheck %s --check-prefix=IR
// RUN: not phobos compile %s --kernel total --emit=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOTAL
// RUN: phobos compile %s --kernel plain --emit=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: phobos compile %s --kernel fine --emit=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=FINE --allow-empty
// The record decides: phobos-opt on the tile IR fails with it and warns without it.
// RUN: phobos compile %s --kernel total --emit=tile | not phobos-opt -p 'builtin.module(tile-check-overlap)' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: phobos compile %s --kernel total --emit=tile | sed 's/tile.checked, //' | phobos-opt -p 'builtin.module(tile-check-overlap)' 2>&1 >/dev/null | FileCheck %s --check-prefix=UNCHECKED

// IR: func.func @total({{.*}}tile.checked

// OPT: error: @checked: CTAs along grid axis x may store to the same elements of 'Y'
// UNCHECKED: warning: CTAs along grid axis x may store to the same elements of 'Y'
// UNCHECKED-NOT: error

@checked
kernel total(X: tensor<f32>[N], Y: tensor<f32>[1]) {
  let s = ctx.block.x * 256
  Y[0 :+ 1] += sum(X[s :+ 256])
}

// TOTAL: tile-check-overlap-checked.ph:22:3: error: @checked: CTAs along grid axis x may store to the same elements of 'Y' (where it writes does not depend on ctx.block.x); plain stores from several CTAs race (the last write wins, read-modify-writes lose updates): store from one CTA, or accumulate with atomic_add
// TOTAL-NEXT: {{^}}  Y[0 :+ 1] += sum(X[s :+ 256])
// TOTAL-NOT: warning

kernel plain(X: tensor<f32>[N], Y: tensor<f32>[1]) {
  let s = ctx.block.x * 256
  Y[0 :+ 1] += sum(X[s :+ 256])
}

// PLAIN: tile-check-overlap-checked.ph:31:3: warning: CTAs along grid axis x may store to the same elements of 'Y'
// PLAIN-NOT: error

@checked
kernel fine(X: tensor<f32>[N], Y: tensor<f32>[N], T: tensor<f32>[1]) {
  let s = ctx.block.x * 256
  Y[s :+ 256] = X[s :+ 256]
  atomic_add(T[0], sum(X[s :+ 256]))
}

// FINE-NOT: warning
// FINE-NOT: error
