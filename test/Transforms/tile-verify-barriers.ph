// tile-verify-barriers re-derives which shared-memory accesses conflict, without the
// planner's code, and checks the barriers tile-insert-barriers recorded (tile.sync). The
// gpu stage runs it: the plan of each kernel here passes. Then a barrier is planted
// missing by editing a record: the dot's reads right after the copies (read after
// write), the copy that overwrites what the previous step's dot read (write after read,
// round the loop), and a reduction's reads of what its own writes put in shared memory.
// RUN: phobos compile %s --emit=gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLEAN --allow-empty
// RUN: phobos compile %s --emit=tile | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers,tile-verify-barriers)' | FileCheck %s --check-prefix=PLAN
// RUN: phobos compile %s --emit=tile --kernel=steps | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers)' | sed 's/read = {at = \(.*\), barrier = true/read = {at = \1, barrier = false/' | not phobos-opt --tile-verify-barriers 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: phobos compile %s --emit=tile --kernel=steps | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers)' | sed 's/copy = {at = \(.*\), barrier = true/copy = {at = \1, barrier = false/' | not phobos-opt --tile-verify-barriers 2>&1 | FileCheck %s --check-prefix=WAR
// RUN: phobos compile %s --emit=tile --kernel=rows | phobos-opt -p 'builtin.module(tile-elide-masks,tile-assign-layout,tile-plan-dots,tile-pipeline,tile-allocate-shared,tile-insert-barriers)' | sed 's/read = {at = \(.*\), barrier = true/read = {at = \1, barrier = false/' | not phobos-opt --tile-verify-barriers 2>&1 | FileCheck %s --check-prefix=EXCHANGE

// CLEAN-NOT: error
// CLEAN-NOT: missing barrier

// PLAN: func.func @steps{{.*}}tile.sync_planned
// PLAN: tile.sync = {copy = {{{.*}}barrier = true
// PLAN: func.func @rows{{.*}}tile.sync_planned

// RAW: error: missing barrier (read after write) before the dot's reads at [[DOT:<stdin>:[0-9]+:[0-9]+]]: it may read bytes of the shared buffer '{{lhs|rhs}} of the dot at [[DOT]]' that other threads write in the copy into shared memory at <stdin>:{{[0-9]+:[0-9]+}}, before they have written them (no barrier separates them on some path); tile.sync 'read' here should say barrier = true
// RAW-NEXT: "tile.dot"
// RAW-NOT: error

// WAR: error: missing barrier (write after read) before the copy into shared memory at <stdin>:{{[0-9]+:[0-9]+}}: it may overwrite bytes of the shared buffer 'lhs of the dot at [[DOT:<stdin>:[0-9]+:[0-9]+]]' that other threads read in the dot's reads at [[DOT]], before they have read them (no barrier separates them on a path round the loop); tile.sync 'copy' here should say barrier = true
// WAR-NEXT: "tile.load_slice"
// The rhs copy's barrier was elided because the lhs copy's orders it: now it is missing too.
// WAR: error: missing barrier (write after read) before the copy into shared memory at {{.*}} 'rhs of the dot at [[DOT]]' {{.*}} round the loop
// WAR-NOT: error

// EXCHANGE: error: missing barrier (read after write) before the reads of the reduction at [[SUM:<stdin>:[0-9]+:[0-9]+]]: it may read bytes of the shared buffer 'the reduction at [[SUM]]' that other threads write in the writes of the reduction at [[SUM]], before they have written them
// EXCHANGE-NOT: error

kernel steps(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {
  var acc: tile<f32>[64, 64] = 0.0
  for kt in range(0, K, 8) {
    acc += dot(A[ctx.block.x * 64 :+ 64, kt :+ 8], B[kt :+ 8, ctx.block.y * 64 :+ 64])
  }
  C[ctx.block.x * 64 :+ 64, ctx.block.y * 64 :+ 64] = acc
}

@launch(256)
kernel rows(X: tensor<f32>[R, 1024], Y: tensor<f32>[R, 1]) {
  let r = ctx.block.x
  Y[r :+ 1, 0 :+ 1] = rowsum(X[r :+ 1, 0 :+ 1024])
}
