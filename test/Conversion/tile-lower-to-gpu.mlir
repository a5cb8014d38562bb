// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-assign-layout,tile-lower-to-gpu,canonicalize,cse)' | FileCheck %s
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-assign-layout,tile-lower-to-gpu{chip=sm_80 noalias=false})' | FileCheck %s --check-prefix=SM80

// The @aligned 2-D scale with the facts tile-elide-masks and tile-specialize
// give it (every dimension in bounds, 16-byte vectors, 16-byte aligned bases):
// bare pointers, one i64 per extent symbol (M, N) and per leading stride,
// the promises checked at entry, and four unguarded 16-byte loads and stores
// per thread.
// CHECK-LABEL: gpu.module @scale_module [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// CHECK: gpu.func @scale(%[[X:.*]]: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias, llvm.readonly}, %[[M:.*]]: i64, %[[N:.*]]: i64, %[[SX:.*]]: i64, %[[Y:.*]]: !llvm.ptr {llvm.align = 16 : i64}, %[[SY:.*]]: i64, %[[ALPHA:.*]]: f32) kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// Column tiles (block_id 1) walk the contiguous dimension: CTAs are renumbered
// so that consecutive hardware CTAs take consecutive column tiles.
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[BY:.*]] = gpu.block_id y
// CHECK: %[[GX:.*]] = gpu.grid_dim x
// CHECK: %[[GY:.*]] = gpu.grid_dim y
// CHECK: %[[YX:.*]] = arith.muli %[[BY]], %[[GX]] : index
// CHECK: %[[LIN:.*]] = arith.addi %[[BX]], %[[YX]] : index
// CHECK: %[[COLT:.*]] = arith.remui %[[LIN]], %[[GY]] : index
// CHECK: %[[ROWT:.*]] = arith.divui %[[LIN]], %[[GY]] : index
// CHECK: %[[XV:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<?xf32>
// CHECK: %[[MI:.*]] = arith.index_cast %[[M]] : i64 to index
// CHECK: %[[REM:.*]] = arith.remui %[[MI]], %c32 : index
// CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[REM]], %c0 : index
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: llvm.intr.trap
// CHECK: arith.remui %{{.*}}, %c128 : index
// CHECK: llvm.intr.trap
// CHECK: arith.muli %[[ROWT]], %c32 : index
// CHECK: arith.muli %[[COLT]], %c128 : index
// CHECK-NOT: scf.if
// CHECK-COUNT-4: vector.load %[[XV]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: %[[A:.*]] = vector.broadcast %[[ALPHA]] : f32 to vector<16xf32>
// CHECK: arith.mulf %[[A]], %{{.*}} : vector<16xf32>
// CHECK-NOT: scf.if
// CHECK-COUNT-4: vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK-NEXT: gpu.return

// SM80: gpu.module @scale_module [#nvvm.target<chip = "sm_80", features = "+ptx80">]
// SM80: gpu.func @scale(%{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}
func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                 %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel, tile.aligned = {M = 32 : i64, N = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %M = "tile.check_multiple"(%m) {divisor = 32 : i64, symbol = "M"} : (index) -> index
  %N = "tile.check_multiple"(%n) {divisor = 128 : i64, symbol = "N"} : (index) -> index
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %pm, %c32 : index
  %col = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %row, %col) {in_bounds = array<i1: true, true>, vector_width = 4 : i64} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %row, %col) {in_bounds = array<i1: true, true>, vector_width = 4 : i64} : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// Without facts every element is checked against the extents (unsigned
// compare, so a negative start is out of bounds too) and accessed alone.
// Loads do not branch per element: inside one uniform check that X is not
// empty, a masked-off element reads element 0 and selects zero.
// CHECK-LABEL: gpu.func @scale_masked
// CHECK-SAME: (%{{.*}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %[[M:.*]]: i64, %[[N:.*]]: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: f32)
// CHECK-NOT: llvm.intr.trap
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: arith.cmpi ugt, %{{.*}}, %c0 : index
// CHECK: %{{.*}}:16 = scf.if %{{.*}} -> (f32, f32,
// CHECK: %[[SAFE:.*]] = arith.select %[[MASK:.*]], %{{.*}}, %c0 : index
// CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[SAFE]]] : memref<?xf32>
// CHECK-NEXT: arith.select %[[MASK]], %[[V]], %{{.*}} : f32
// CHECK-NOT: vector.load
// CHECK: vector.from_elements %{{.*}} : vector<16xf32>
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NOT: vector.store
// CHECK: gpu.return
func.func @scale_masked(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                        %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]},
                        %alpha: f32 {tile.name = "alpha"}) attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %pm, %c32 : index
  %col = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %row, %col) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %row, %col) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// Offset form with a mask and a proven width of 4: each 16-byte chunk is
// guarded by the mask of its first element (tile-elide-masks proves the mask
// constant over the chunk before it allows width 4).
// CHECK-LABEL: gpu.func @saxpy
// CHECK-SAME: (%{{.*}}: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias, llvm.readonly}, %{{.*}}: i64, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: f32)
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[OFFS:.*]], %{{.*}} : vector<4xi32>
// CHECK: %[[O0:.*]] = vector.extract %[[OFFS]][0] : i32 from vector<4xi32>
// CHECK: %[[I0:.*]] = arith.index_cast %[[O0]] : i32 to index
// CHECK: %[[M0:.*]] = vector.extract %[[MASK]][0] : i1 from vector<4xi1>
// CHECK: scf.if %[[M0]] -> (vector<4xf32>) {
// CHECK-NEXT: vector.load %{{.*}}[%[[I0]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %cst{{.*}} : vector<4xf32>
// CHECK: scf.if %[[M0]] {
// CHECK-NEXT: vector.store %{{.*}}, %{{.*}}[%[[I0]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
func.func @saxpy(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 16 : i64},
                 %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"], tile.ptr_align = 16 : i64},
                 %a: f32 {tile.name = "a"}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pid32 = arith.index_cast %pid : index to i32
  %c1024 = arith.constant 1024 : i32
  %start = arith.muli %pid32, %c1024 : i32
  %r = "tile.range"() {start = 0 : i64, end = 1024 : i64} : () -> tensor<1024xi32>
  %s = tensor.splat %start : tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %n32 = arith.index_cast %n : index to i32
  %ns = tensor.splat %n32 : tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %x = "tile.load"(%X, %offs, %mask) {vector_width = 4 : i64} : (memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> tensor<1024xf32>
  %y = "tile.load"(%Y, %offs, %mask) {vector_width = 4 : i64} : (memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> tensor<1024xf32>
  %as = tensor.splat %a : tensor<1024xf32>
  %ax = arith.mulf %as, %x : tensor<1024xf32>
  %z = arith.addf %ax, %y : tensor<1024xf32>
  "tile.store"(%z, %Y, %offs, %mask) {vector_width = 4 : i64} : (tensor<1024xf32>, memref<?xf32>, tensor<1024xi32>, tensor<1024xi1>) -> ()
  return
}

// -----

// Broadcasts: a row of 64 (a slice of the 2-D layout) and a column of 16
// reach the 16x64 tile as static register shuffles and splats; a 1-D range
// placed along dimension 0 is the thread's row coordinate plus constants.
// CHECK-LABEL: gpu.func @outer
// CHECK-DAG: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 0, 1, 2, 3] : vector<4xf32>, vector<4xf32>
// CHECK-DAG: vector.shuffle %{{.*}}, %{{.*}} [0, 0, 0, 0, 1, 1, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @outer(%A: memref<?xf32> {tile.name = "A", tile.dims = ["M"]},
                 %B: memref<?xf32> {tile.name = "B", tile.dims = ["N"]},
                 %C: memref<?x?xf32> {tile.name = "C", tile.dims = ["M", "N"]}) attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tile.load_slice"(%A, %c0) : (memref<?xf32>, index) -> tensor<16xf32>
  %b = "tile.load_slice"(%B, %c0) : (memref<?xf32>, index) -> tensor<64xf32>
  %a2 = tensor.expand_shape %a [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %b2 = tensor.expand_shape %b [[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  %ab = "tile.broadcast"(%a2) : (tensor<16x1xf32>) -> tensor<16x64xf32>
  %bb = "tile.broadcast"(%b2) : (tensor<1x64xf32>) -> tensor<16x64xf32>
  %c = arith.mulf %ab, %bb : tensor<16x64xf32>
  "tile.store_slice"(%c, %C, %c0, %c0) {vector_width = 4 : i64} : (tensor<16x64xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// Loop-carried tiles are carried as the thread's registers.
// CHECK-LABEL: gpu.func @rows
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<4xf32>) {
// CHECK: %[[S:.*]] = arith.addf %[[A]], %{{.*}} : vector<4xf32>
// CHECK: scf.yield %[[S]] : vector<4xf32>
// CHECK: scf.if
func.func @rows(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "K"]},
                %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["K"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %m step %c32 iter_args(%a = %zero) -> (tensor<32x32xf32>) {
    %x = "tile.load_slice"(%X, %k, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x32xf32>
    %s = arith.addf %a, %x : tensor<32x32xf32>
    scf.yield %s : tensor<32x32xf32>
  }
  "tile.store_slice"(%acc, %X, %c0, %c0) : (tensor<32x32xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
