// Every op carries the file:line:col of its construct: the kernel name for the
// function, the promise (`N = 64`) for its @aligned entry check, each parameter's name, the first token of a
// slice or grid query, the operator of a binary expression, a loop's keyword.
// RUN: phobos compile --mlir-print-debuginfo %s | phobos-opt --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s

@aligned(N = 64)
kernel locs(X: tensor<f32>[N], k: i32) {
  let b = ctx.block.x
  var acc = X[b * 64 :+ 64]
  for i in range(0, k) {
    acc = acc * 2.0
  }
  X[b * 64 :+ 64] = acc
}

// CHECK: func.func @locs(%{{.*}}: memref<?xf32> {{.*}} loc("{{.*}}locations.ph":7:13), %{{.*}}: i32 {{.*}} loc("{{.*}}locations.ph":7:32))
// CHECK: "tile.check_multiple"(%{{.*}}) {divisor = 64 : i64, symbol = "N"} : (index) -> index loc("{{.*}}locations.ph":6:10)
// CHECK: "tile.block_id"() {dim = 0 : i64} : () -> index loc("{{.*}}locations.ph":8:11)
// CHECK: arith.constant 64 : index loc("{{.*}}locations.ph":9:19)
// CHECK: arith.muli %{{.*}}, %{{.*}} : index loc("{{.*}}locations.ph":9:17)
// CHECK: "tile.load_slice"(%{{.*}}, %{{.*}}) : (memref<?xf32>, index) -> tensor<64xf32> loc("{{.*}}locations.ph":9:13)
// CHECK: arith.index_cast %{{.*}} : i32 to index loc("{{.*}}locations.ph":10:21)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<64xf32> loc("{{.*}}locations.ph":11:15)
// CHECK: scf.yield %{{.*}} : tensor<64xf32> loc("{{.*}}locations.ph":10:3)
// CHECK: } loc("{{.*}}locations.ph":10:3)
// CHECK: "tile.store_slice"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<64xf32>, memref<?xf32>, index) -> () loc("{{.*}}locations.ph":13:3)
