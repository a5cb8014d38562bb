// An atomic whose target is a gather of a CTA-local tile (`atomic_add(masked(h[v], m), 1)`
// with `var h: tile<i32>[NB]`) becomes tile.local_rmw: indices outside [0, NB) masked off
// (an unsigned compare), and-ed with the user's mask, and the result is the variable's new
// value: a loop carries it, and the flush reads it as a tile.
// RUN: phobos compile %s --emit=tile | FileCheck %s

// CHECK-LABEL: func.func @hist
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : tensor<128xi32>
// CHECK: scf.for {{.*}} iter_args(%[[H:.*]] = %[[ZERO]]) -> (tensor<128xi32>)
// CHECK: %[[IDX:.*]] = arith.index_cast {{.*}} : tensor<512xi32> to tensor<512xindex>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[IDX]], {{.*}} : tensor<512xindex>
// CHECK: %[[M:.*]] = arith.andi %[[IN]], {{.*}} : tensor<512xi1>
// CHECK: %[[NEW:.*]] = "tile.local_rmw"(%[[H]], {{.*}}, %[[IDX]], %[[M]]) {kind = "add"} : (tensor<128xi32>, tensor<512xi32>, tensor<512xindex>, tensor<512xi1>) -> tensor<128xi32>
// CHECK: scf.yield %[[NEW]]
// CHECK: "tile.atomic_rmw"
@launch(128)
kernel hist(X: tensor<i32>[N], H: tensor<i32>[B]) {
  var h: tile<i32>[128] = 0
  for k in range(0, 4) {
    let s = (ctx.block.x * 4 + k) * 512
    atomic_add(masked(h[X[s :+ 512]], arange(512) + s < N), 1)
  }
  atomic_add(masked(H[0 :+ 128], arange(128) < B && h != 0), h)
}

// CHECK-LABEL: func.func @maxes
// CHECK: "tile.local_rmw"({{.*}}) {kind = "max"} : (tensor<64xi32>, tensor<16x16xi32>, tensor<16x16xindex>, tensor<16x16xi1>) -> tensor<64xi32>
kernel maxes(I: tensor<i32>[16, 16], V: tensor<i32>[16, 16], Y: tensor<i32>[64]) {
  var m: tile<i32>[64] = -1
  atomic_max(m[I[0 :+ 16, 0 :+ 16]], V[0 :+ 16, 0 :+ 16])
  Y[0 :+ 64] = m
}
