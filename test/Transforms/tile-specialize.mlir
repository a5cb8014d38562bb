// tile-specialize: a launch-time specialisation key becomes argument
// attributes, by parameter name.
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=X=a16.e16x4.s16;n=4 kernel=scale})' | FileCheck %s
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=X=a16.e16x16.s16;Y=a16.e16x16.s16 kernel=scale},tile-elide-masks)' | FileCheck %s --check-prefix=WIDTH
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=Z=a16.e16x16.s16 kernel=scale})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=X=a16.e16.s kernel=scale})' 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=alpha=4 kernel=scale})' 2>&1 | FileCheck %s --check-prefix=FLOAT
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=n=a16.e16.s kernel=scale})' 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=X=a8.e16x16.s16 kernel=scale})' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=n=16 kernel=other})' | FileCheck %s --check-prefix=ONE
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=n=16})' 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-specialize)' | FileCheck %s --check-prefix=EMPTY
// RUN: not phobos-opt %s --pass-pipeline='builtin.module(tile-specialize{key=n=16 kernel=nope})' 2>&1 | FileCheck %s --check-prefix=NOPE

// Named parameters get the facts; others keep their attributes.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: %arg0: memref<?x?xf32> {tile.dims = ["M", "N"], tile.divisibility = array<i64: 16, 4>, tile.name = "X", tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>}
// CHECK-SAME: %arg1: memref<?x?xf32> {tile.dims = ["M", "N"], tile.name = "Y"}
// CHECK-SAME: %arg2: f32 {tile.name = "alpha"}
// CHECK-SAME: %arg3: i32 {tile.divisibility = array<i64: 4>, tile.name = "n"}
// Other kernels and functions are left alone.
// CHECK-LABEL: func.func @other
// CHECK-SAME: %arg0: i32 {tile.name = "n"}
// CHECK-LABEL: func.func @helper
// CHECK-SAME: %arg0: i32 {tile.name = "n"}

// Specialised to 16-byte aligned data that is a whole number of tiles but
// without a promise: 16-byte vectors (a vector never straddles the edge),
// masked (a CTA may lie past the edge of a smaller tensor).
// WIDTH: "tile.load_slice"({{.*}}) {in_bounds = array<i1: false, false>, vector_width = 4 : i64}
// WIDTH: "tile.store_slice"({{.*}}) {in_bounds = array<i1: false, false>, vector_width = 4 : i64}

// UNKNOWN: error: specialisation key 'Z=a16.e16x16.s16' does not fit kernel 'scale': it has no parameter named 'Z' (parameters: X, Y, alpha, n)
// RANK: error: specialisation key 'X=a16.e16.s' does not fit kernel 'scale': it gives 'X' 1 extent classes, but it has rank 2
// FLOAT: error: {{.*}} it gives the divisibility class 4 to 'alpha', which is not an integer (type f32)
// SCALAR: error: {{.*}} it gives tensor facts 'a16.e16.s' to 'n', which is a scalar of type i32
// MALFORMED: error: tile-specialize: tensor facts 'a8.e16x16.s16' use a class outside (16, 4, 1) or an alignment other than 16/1

// SEVERAL: error: tile-specialize: the module has several kernels (scale, other); name one with kernel=...
// NOPE: error: tile-specialize: no kernel named 'nope' (kernels: scale, other)

// EMPTY-LABEL: func.func @scale
// EMPTY-SAME: %arg0: memref<?x?xf32> {tile.dims = ["M", "N"], tile.name = "X"}

// With kernel=other only @other changes.
// ONE-LABEL: func.func @scale
// ONE-SAME: %arg3: i32 {tile.name = "n"}
// ONE-LABEL: func.func @other
// ONE-SAME: %arg0: i32 {tile.divisibility = array<i64: 16>, tile.name = "n"}
func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]},
                 %alpha: f32 {tile.name = "alpha"}, %n: i32 {tile.name = "n"}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %r = arith.muli %pm, %c32 : index
  %c = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %r, %c) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %r, %c) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

func.func @other(%n: i32 {tile.name = "n"}) attributes {tile.kernel} {
  return
}

func.func @helper(%n: i32 {tile.name = "n"}) {
  return
}
