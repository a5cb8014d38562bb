// tile-insert-checks: check mode. The kernel is marked tile.check_mode (every kernel
// with check=true, else those marked tile.checked); each hint's divisibility and each
// offset access's offsets get a tile.check; then tile-elide-masks turns each mask it
// drops and each slice dimension it takes as inside its tensor into a tile.check.
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-insert-checks{check=true},tile-elide-masks)' | FileCheck %s
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-insert-checks,tile-elide-masks)' | FileCheck %s --check-prefix=OFF

// An @aligned scale: both slices are in bounds in both dimensions, so each gets
// a check per dimension (start >= 0 and start + tile <= extent), before the access.
// CHECK-LABEL: func.func @scale_aligned
// CHECK-SAME: tile.check_mode
// CHECK: %[[R:.*]] = arith.muli %{{.*}}, %c32
// CHECK: %[[DIM0:.*]] = memref.dim %arg0, %{{.*}} : memref<?x?xf32>
// CHECK: %[[END0:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK: %[[LO0:.*]] = arith.cmpi sge, %[[R]], %{{.*}} : index
// CHECK: %[[HI0:.*]] = arith.cmpi sle, %[[END0]], %[[DIM0]] : index
// CHECK: %[[OK0:.*]] = arith.andi %[[LO0]], %[[HI0]] : i1
// CHECK: "tile.check"(%[[OK0]], %[[R]]) {check = "bounds", message = "this tile.load_slice lies inside its tensor along dimension 0 (0 <= start, start + 32 <= extent)
// CHECK: "tile.check"({{.*}}) {check = "bounds", message = "this tile.load_slice lies inside its tensor along dimension 1 (0 <= start, start + 128 <= extent)
// CHECK-NEXT: "tile.load_slice"({{.*}}) {in_bounds = array<i1: true, true>
// CHECK: "tile.check"({{.*}}) {check = "bounds", message = "this tile.store_slice lies inside its tensor along dimension 0
// CHECK: "tile.check"({{.*}}) {check = "bounds", message = "this tile.store_slice lies inside its tensor along dimension 1
// CHECK-NEXT: "tile.store_slice"
// OFF-LABEL: func.func @scale_aligned
// OFF-NOT: tile.check_mode
// OFF-NOT: "tile.check"(
func.func @scale_aligned(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                         %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]})
    attributes {tile.kernel, tile.aligned = {M = 32 : i64, N = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %mc = "tile.check_multiple"(%m) {divisor = 32 : i64, symbol = "M"} : (index) -> index
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %nc = "tile.check_multiple"(%n) {divisor = 128 : i64, symbol = "N"} : (index) -> index
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %r = arith.muli %pm, %c32 : index
  %c = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %r, %c) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  "tile.store_slice"(%x, %Y, %r, %c) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// A masked slice that is not provably inside: no bounds check (the mask stays).
// CHECK-LABEL: func.func @masked
// CHECK-NOT: "tile.check"
// CHECK: "tile.load_slice"({{.*}}) {in_bounds = array<i1: false>
func.func @masked(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
                  %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]})
    attributes {tile.kernel} {
  %p = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c256 = arith.constant 256 : index
  %s = arith.muli %p, %c256 : index
  %x = "tile.load_slice"(%X, %s) : (memref<?xf32>, index) -> tensor<256xf32>
  "tile.store_slice"(%x, %Y, %s) : (tensor<256xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// A hinted scalar: its divisibility is checked right after the hint (value % 16 == 0).
// Offsets with contiguity 4 and divisibility 4: only each group's first element
// must be a multiple (coordinate % 4 == 0 or value % 4 == 0). The masked load's offsets
// are checked inside the tensor where the mask holds; the unmasked store's everywhere.
// CHECK-LABEL: func.func @hinted
// CHECK: %[[H:.*]] = "tile.hint"(%arg2) {divisibility = array<i64: 16>}
// CHECK: %[[REM:.*]] = arith.remsi %[[H]], %c16
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[REM]], %c0
// CHECK: "tile.check"(%[[OK]], %[[H]]) {check = "hint", message = "tile.hint promises the values (the first of each contiguous group) are multiples of 16"} : (i1, index) -> ()
// CHECK: %[[T:.*]] = "tile.hint"(%{{.*}}) {contiguity = array<i64: 4>, divisibility = array<i64: 4>}
// CHECK: %[[TREM:.*]] = arith.remsi %[[T]], %{{.*}} : tensor<256xi32>
// CHECK: %[[TOK:.*]] = arith.cmpi eq, %[[TREM]], %{{.*}} : tensor<256xi32>
// CHECK: %[[COORD:.*]] = "tile.range"() {end = 256 : i64, start = 0 : i64} : () -> tensor<256xi32>
// CHECK: %[[CREM:.*]] = arith.remsi %[[COORD]], %{{.*}} : tensor<256xi32>
// CHECK: %[[INSIDE:.*]] = arith.cmpi ne, %[[CREM]], %{{.*}} : tensor<256xi32>
// CHECK: %[[GOK:.*]] = arith.ori %[[INSIDE]], %[[TOK]] : tensor<256xi1>
// CHECK: "tile.check"(%[[GOK]], %[[T]]) {check = "hint"
// CHECK: "tile.check"({{.*}}) {check = "bounds", message = "this tile.load's offsets where its mask holds lie inside its tensor
// CHECK-NEXT: "tile.load"
// CHECK: "tile.check"({{.*}}) {check = "bounds", message = "this tile.store's offsets lie inside its tensor
// CHECK-NEXT: "tile.store"
func.func @hinted(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
                  %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
                  %s: index {tile.name = "s"}, %n: i32 {tile.name = "n"})
    attributes {tile.kernel} {
  %h = "tile.hint"(%s) {divisibility = array<i64: 16>} : (index) -> index
  %hi = arith.index_cast %h : index to i32
  %r = "tile.range"() {start = 0 : i64, end = 256 : i64} : () -> tensor<256xi32>
  %b = tensor.splat %hi : tensor<256xi32>
  %o = arith.addi %r, %b : tensor<256xi32>
  %t = "tile.hint"(%o) {divisibility = array<i64: 4>, contiguity = array<i64: 4>} : (tensor<256xi32>) -> tensor<256xi32>
  %nb = tensor.splat %n : tensor<256xi32>
  %m = arith.cmpi slt, %r, %nb : tensor<256xi32>
  %x = "tile.load"(%X, %t, %m) : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  "tile.store"(%x, %Y, %r) : (tensor<256xf32>, memref<?xf32>, tensor<256xi32>) -> ()
  return
}

// -----

// Without check=true only a tile.checked kernel is put in check mode.
// OFF-LABEL: func.func @marked
// OFF-SAME: tile.check_mode
// OFF: "tile.check"
func.func @marked(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
                  %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]})
    attributes {tile.kernel, tile.checked, tile.aligned = {N = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %nc = "tile.check_multiple"(%n) {divisor = 256 : i64, symbol = "N"} : (index) -> index
  %p = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c256 = arith.constant 256 : index
  %s = arith.muli %p, %c256 : index
  %x = "tile.load_slice"(%X, %s) : (memref<?xf32>, index) -> tensor<256xf32>
  "tile.store_slice"(%x, %Y, %s) : (tensor<256xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// 2-D hints: each dimension's divisibility is checked at the first element of its
// groups along that dimension (coordinates: a range, a unit dimension around it, a
// broadcast); a dimension with divisibility 1 or contiguity 1 needs less.
// CHECK-LABEL: func.func @hinted_2d
// CHECK: %[[A:.*]] = "tile.hint"(%{{.*}}) {contiguity = array<i64: 1, 2>, divisibility = array<i64: 2, 4>}
// CHECK-NEXT: %[[D2:.*]] = arith.constant dense<2> : tensor<4x8xi32>
// CHECK-NEXT: %[[R0:.*]] = arith.remsi %[[A]], %[[D2]] : tensor<4x8xi32>
// CHECK-NEXT: arith.constant dense<0> : tensor<4x8xi32>
// CHECK-NEXT: %[[OK0:.*]] = arith.cmpi eq, %[[R0]], %{{.*}} : tensor<4x8xi32>
// CHECK-NEXT: %[[D4:.*]] = arith.constant dense<4> : tensor<4x8xi32>
// CHECK-NEXT: %[[R1:.*]] = arith.remsi %[[A]], %[[D4]] : tensor<4x8xi32>
// CHECK-NEXT: arith.constant dense<0> : tensor<4x8xi32>
// CHECK-NEXT: %[[OK1:.*]] = arith.cmpi eq, %[[R1]], %{{.*}} : tensor<4x8xi32>
// CHECK-NEXT: %[[COLS:.*]] = "tile.range"() {end = 8 : i64, start = 0 : i64} : () -> tensor<8xi32>
// CHECK-NEXT: %[[ROW:.*]] = tensor.expand_shape %[[COLS]] {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xi32> into tensor<1x8xi32>
// CHECK-NEXT: %[[C1:.*]] = "tile.broadcast"(%[[ROW]]) : (tensor<1x8xi32>) -> tensor<4x8xi32>
// CHECK-NEXT: %[[G2:.*]] = arith.constant dense<2> : tensor<4x8xi32>
// CHECK-NEXT: %[[CR:.*]] = arith.remsi %[[C1]], %[[G2]] : tensor<4x8xi32>
// CHECK-NEXT: arith.constant dense<0> : tensor<4x8xi32>
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ne, %[[CR]], %{{.*}} : tensor<4x8xi32>
// CHECK-NEXT: %[[GOK:.*]] = arith.ori %[[IN]], %[[OK1]] : tensor<4x8xi1>
// CHECK-NEXT: %[[ALL:.*]] = arith.andi %[[OK0]], %[[GOK]] : tensor<4x8xi1>
// CHECK-NEXT: "tile.check"(%[[ALL]], %[[A]]) {check = "hint", message = "tile.hint promises the values (the first of each contiguous group) are multiples of 2 x 4"}
// CHECK: %[[B:.*]] = "tile.hint"(%{{.*}}) {contiguity = array<i64: 4, 1>, divisibility = array<i64: 8, 1>}
// CHECK-NEXT: %[[D8:.*]] = arith.constant dense<8> : tensor<4x8xi32>
// CHECK-NEXT: %[[RB:.*]] = arith.remsi %[[B]], %[[D8]] : tensor<4x8xi32>
// CHECK-NEXT: arith.constant dense<0> : tensor<4x8xi32>
// CHECK-NEXT: arith.cmpi eq, %[[RB]], %{{.*}} : tensor<4x8xi32>
// CHECK-NEXT: %[[ROWS:.*]] = "tile.range"() {end = 4 : i64, start = 0 : i64} : () -> tensor<4xi32>
// CHECK-NEXT: %[[COL:.*]] = tensor.expand_shape %[[ROWS]] {{\[\[}}0, 1]] output_shape [4, 1] : tensor<4xi32> into tensor<4x1xi32>
// CHECK-NEXT: "tile.broadcast"(%[[COL]]) : (tensor<4x1xi32>) -> tensor<4x8xi32>
// CHECK-NEXT: arith.constant dense<4> : tensor<4x8xi32>
// CHECK-NOT: arith.andi
// CHECK: "tile.check"({{.*}}, %[[B]]) {check = "hint"
func.func @hinted_2d(%X: memref<?x?xi32> {tile.name = "X", tile.dims = ["M", "N"]})
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0, %c0) : (memref<?x?xi32>, index, index) -> tensor<4x8xi32>
  %a = "tile.hint"(%x) {divisibility = array<i64: 2, 4>, contiguity = array<i64: 1, 2>} : (tensor<4x8xi32>) -> tensor<4x8xi32>
  %b = "tile.hint"(%x) {divisibility = array<i64: 8, 1>, contiguity = array<i64: 4, 1>} : (tensor<4x8xi32>) -> tensor<4x8xi32>
  %s = arith.addi %a, %b : tensor<4x8xi32>
  "tile.store_slice"(%s, %X, %c0, %c0) : (tensor<4x8xi32>, memref<?x?xi32>, index, index) -> ()
  return
}
