// tile-elide-masks: in_bounds on slice accesses, masks dropped where proven
// all-true, and the widest legal vector access of every memory op.
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-elide-masks)' | FileCheck %s
// RUN: phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-elide-masks{remarks=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// @aligned scale, compiled for 16-byte aligned data (the arguments carry
// what tile-specialize records): no masks and 16-byte vectors.
// CHECK-LABEL: func.func @scale_aligned
// CHECK: "tile.load_slice"({{.*}}) {in_bounds = array<i1: true, true>, vector_width = 4 : i64}
// CHECK: "tile.store_slice"({{.*}}) {in_bounds = array<i1: true, true>, vector_width = 4 : i64}
// REMARK-NOT: remark
func.func @scale_aligned(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                         %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                         %alpha: f32 {tile.name = "alpha"})
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
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %r, %c) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

// The same kernel without a promise and without specialisation: masked, scalar.
// CHECK-LABEL: func.func @scale_unaligned
// CHECK: "tile.load_slice"({{.*}}) {in_bounds = array<i1: false, false>, vector_width = 1 : i64}
// CHECK: "tile.store_slice"({{.*}}) {in_bounds = array<i1: false, false>, vector_width = 1 : i64}
// REMARK: tile-elide-masks.mlir:{{[0-9]+}}:8: remark: tile.load_slice: 1-element accesses: the stride of dimension 0 of 'X' is not known to be a multiple of 4 (leading strides are runtime values: a specialisation key with 'X=...s16' provides it); the base of 'X' is not known to be 16-byte aligned (a specialisation key with 'X=a16...' provides it); the extent 'N' is not known to be a multiple of 4 (add @aligned(N = ...) or pass aligned data)
// REMARK-NEXT: %x = "tile.load_slice"
// REMARK-NEXT: ^
// REMARK-NEXT: tile-elide-masks.mlir:{{[0-9]+}}:3: remark: tile.store_slice: 1-element accesses: the stride of dimension 0 of 'Y' is not known
func.func @scale_unaligned(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                           %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]},
                           %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel} {
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

// -----

// Specialised to extents and strides that are multiples of 16 and aligned
// pointers, without a promise: still masked (a CTA may sit at the edge), but
// a vector is either wholly inside or wholly outside, so 16-byte vectors.
// CHECK-LABEL: func.func @specialised_only
// CHECK: "tile.load_slice"({{.*}}) {in_bounds = array<i1: false, false>, vector_width = 4 : i64}
func.func @specialised_only(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64,
                                                 tile.divisibility = array<i64: 16, 16>, tile.stride_divisibility = array<i64: 16>})
    attributes {tile.kernel} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %r = arith.muli %pm, %c32 : index
  %c = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %r, %c) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  return
}

// -----

// Tile extents need not be powers of two: 96 rows are in bounds when the
// extent is a multiple of 96, not when it is only a multiple of 32. A
// promise smaller than the tile keeps the mask but, being a multiple of 4,
// still allows 16-byte vectors; f16 vectors hold 8 elements. But A and B
// share their block ids along different extents (M and P, N and Q): the grid
// rule disagrees, the caller sizes the grid, and A keeps its masks too (see
// @grid_rule_disagrees; the numeric slice test covers 96-row tiles).
// CHECK-LABEL: func.func @tile_extents
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: false, false>, vector_width = 8 : i64}
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: false, false>, vector_width = 8 : i64}
func.func @tile_extents(%A: memref<?x?xf16> {tile.name = "A", tile.dims = ["M", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                        %B: memref<?x?xf16> {tile.name = "B", tile.dims = ["P", "Q"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>})
    attributes {tile.kernel, tile.aligned = {M = 96 : i64, N = 64 : i64, P = 32 : i64, Q = 32 : i64}} {
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %c96 = arith.constant 96 : index
  %c64 = arith.constant 64 : index
  %r = arith.muli %pm, %c96 : index
  %c = arith.muli %pn, %c64 : index
  %a = "tile.load_slice"(%A, %r, %c) : (memref<?x?xf16>, index, index) -> tensor<96x64xf16>
  %b = "tile.load_slice"(%B, %r, %c) : (memref<?x?xf16>, index, index) -> tensor<96x64xf16>
  return
}

// -----

// Starts. In bounds: a loop over K in steps of the tile, a constant start
// that fits a static extent. Masked: a start that may be negative, the next
// tile (past the edge for the last CTA), a loop that runs past the extent, a
// constant start on a dynamic extent (the tensor may be empty), a constant
// start that does not fit.
// CHECK-LABEL: func.func @starts
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: true, true>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: false, true>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: false, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: true, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: true, true>, vector_width = 1 : i64}
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: false, true>, vector_width = 1 : i64}
// REMARK: remark: tile.load_slice: 1-element accesses: the stride of dimension 0 of 'S' is not known to be a multiple of 4 (leading strides are runtime values: a specialisation key with 'S=...s16' provides it); the base of 'S' is not known to be 16-byte aligned (a specialisation key with 'S=a16...' provides it)
func.func @starts(%A: memref<?x?xf32> {tile.name = "A", tile.dims = ["M", "K"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                  %S: memref<100x64xf32> {tile.name = "S", tile.dims = ["100", "64"]})
    attributes {tile.kernel, tile.aligned = {M = 32 : i64, K = 16 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %k = memref.dim %A, %c1 : memref<?x?xf32>
  %kc = "tile.check_multiple"(%k) {divisor = 16 : i64, symbol = "K"} : (index) -> index
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %r = arith.muli %pm, %c32 : index
  %prev = arith.subi %r, %c32 : index
  scf.for %kt = %c0 to %kc step %c16 {
    %a = "tile.load_slice"(%A, %r, %kt) : (memref<?x?xf32>, index, index) -> tensor<32x16xf32>
    %b = "tile.load_slice"(%A, %prev, %kt) : (memref<?x?xf32>, index, index) -> tensor<32x16xf32>
  }
  %next = arith.addi %r, %c32 : index
  %n = "tile.load_slice"(%A, %next, %c0) : (memref<?x?xf32>, index, index) -> tensor<32x16xf32>
  %past = arith.addi %kc, %c32 : index
  scf.for %kt = %c0 to %past step %c16 {
    %p = "tile.load_slice"(%A, %r, %kt) : (memref<?x?xf32>, index, index) -> tensor<32x16xf32>
  }
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %s1 = "tile.load_slice"(%S, %c64, %c0) : (memref<100x64xf32>, index, index) -> tensor<32x64xf32>
  %s2 = "tile.load_slice"(%S, %c96, %c0) : (memref<100x64xf32>, index, index) -> tensor<32x64xf32>
  return
}

// -----

// Offset form: an all-true mask goes away; the width follows the offsets'
// runs and their alignment, the base alignment and the mask's constancy.
// CHECK-LABEL: func.func @offsets
// CHECK: "tile.load"(%arg0, %{{[^,]*}}) {vector_width = 4 : i64} : (memref<?xf32>, tensor<256xi32>) -> tensor<256xf32>
// CHECK: "tile.load"(%arg0, %{{[^,]*}}) {vector_width = 1 : i64} : (memref<?xf32>, tensor<256xi32>) -> tensor<256xf32>
// CHECK: "tile.load"(%arg0, %{{[^,]*}}, %{{[^,]*}}) {vector_width = 4 : i64} : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
// CHECK: "tile.load"(%arg0, %{{[^,]*}}, %{{[^,]*}}) {vector_width = 1 : i64} : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
// CHECK: "tile.store"(%{{[^,]*}}, %arg0, %{{[^,]*}}) {vector_width = 4 : i64} : (tensor<256xf32>, memref<?xf32>, tensor<256xi32>) -> ()
// REMARK: remark: tile.load: 1-element accesses: the offsets that start each run are not known to be multiples of 4 (multiple_of can promise it)
// REMARK: remark: tile.load: 1-element accesses: the mask is constant only over runs of 1 along the last dimension
// REMARK-NOT: remark
func.func @offsets(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 16 : i64},
                   %n: i32 {tile.name = "n", tile.divisibility = array<i64: 16>}, %m: i32 {tile.name = "m"},
                   %start: i32 {tile.name = "start"})
    attributes {tile.kernel} {
  %true = arith.constant dense<true> : tensor<256xi1>
  %r = "tile.range"() {start = 0 : i64, end = 256 : i64} : () -> tensor<256xi32>
  %s = tensor.splat %start : tensor<256xi32>
  %raw = arith.addi %s, %r : tensor<256xi32>
  // Triton's hints: runs of 256 whose first element is a multiple of 16.
  %hinted = "tile.hint"(%raw) {contiguity = array<i64: 256>, divisibility = array<i64: 16>} : (tensor<256xi32>) -> tensor<256xi32>
  %a = "tile.load"(%X, %hinted, %true) : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  // Without hints: the start is unknown.
  %b = "tile.load"(%X, %raw, %true) : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  // offs < n with n a multiple of 16: the mask is constant over groups of 16.
  %ns = tensor.splat %n : tensor<256xi32>
  %mask = arith.cmpi slt, %hinted, %ns : tensor<256xi32>
  %c = "tile.load"(%X, %hinted, %mask) : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  // offs < m with m unknown: the mask may change at every element.
  %ms = tensor.splat %m : tensor<256xi32>
  %mask2 = arith.cmpi slt, %hinted, %ms : tensor<256xi32>
  %d = "tile.load"(%X, %hinted, %mask2) : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  "tile.store"(%a, %X, %hinted, %true) : (tensor<256xf32>, memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> ()
  return
}

// -----

// 2-D offsets, row * stride + column, with a stride that is a multiple of 16:
// every row is a run starting at a multiple of 16 (Triton's classic pattern).
// A strided column gather cannot be vectorised.
// CHECK-LABEL: func.func @offsets_2d
// CHECK: "tile.load"({{.*}}) {vector_width = 4 : i64} : (memref<?xf32>, tensor<4x64xi32>) -> tensor<4x64xf32>
// CHECK: "tile.load"({{.*}}) {vector_width = 1 : i64} : (memref<?xf32>, tensor<64xi32>) -> tensor<64xf32>
// REMARK: remark: tile.load: 1-element accesses: the offsets are contiguous only in runs of 1 along the last dimension (max_contiguous can promise more)
func.func @offsets_2d(%X: memref<?xf32> {tile.name = "X", tile.dims = ["L"], tile.ptr_align = 16 : i64},
                      %stride: i32 {tile.name = "stride", tile.divisibility = array<i64: 16>})
    attributes {tile.kernel} {
  %rows = "tile.range"() {start = 0 : i64, end = 4 : i64} : () -> tensor<4xi32>
  %r2 = tensor.expand_shape %rows [[0, 1]] output_shape [4, 1] : tensor<4xi32> into tensor<4x1xi32>
  %s = tensor.splat %stride : tensor<4x1xi32>
  %rs = arith.muli %r2, %s : tensor<4x1xi32>
  %rb = "tile.broadcast"(%rs) : (tensor<4x1xi32>) -> tensor<4x64xi32>
  %cols = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  %c2 = tensor.expand_shape %cols [[0, 1]] output_shape [1, 64] : tensor<64xi32> into tensor<1x64xi32>
  %cb = "tile.broadcast"(%c2) : (tensor<1x64xi32>) -> tensor<4x64xi32>
  %offs = arith.addi %rb, %cb : tensor<4x64xi32>
  %a = "tile.load"(%X, %offs) : (memref<?xf32>, tensor<4x64xi32>) -> tensor<4x64xf32>
  %ss = tensor.splat %stride : tensor<64xi32>
  %column = arith.muli %cols, %ss : tensor<64xi32>
  %b = "tile.load"(%X, %column) : (memref<?xf32>, tensor<64xi32>) -> tensor<64xf32>
  return
}

// -----

// Runs shorter than the widest access must start aligned too: runs of 2 from
// an unknown start give scalar accesses (a 2-wide access at an odd offset is
// misaligned), runs of 2 starting at even offsets give 2-wide ones.
// CHECK-LABEL: func.func @short_runs
// CHECK: "tile.load"(%arg0, %{{[^,]*}}) {vector_width = 1 : i64}
// CHECK: "tile.load"(%arg0, %{{[^,]*}}) {vector_width = 2 : i64}
// REMARK: remark: tile.load: 1-element accesses: the offsets are contiguous only in runs of 2 along the last dimension (max_contiguous can promise more); the offsets that start each run are not known to be multiples of 4 (multiple_of can promise it)
// REMARK: remark: tile.load: 2-element accesses: the offsets are contiguous only in runs of 2 along the last dimension (max_contiguous can promise more)
// REMARK-NOT: remark
func.func @short_runs(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 16 : i64},
                      %start: i32 {tile.name = "start"})
    attributes {tile.kernel} {
  %r = "tile.range"() {start = 0 : i64, end = 256 : i64} : () -> tensor<256xi32>
  %s = tensor.splat %start : tensor<256xi32>
  %raw = arith.addi %s, %r : tensor<256xi32>
  %pairs = "tile.hint"(%raw) {contiguity = array<i64: 2>} : (tensor<256xi32>) -> tensor<256xi32>
  %a = "tile.load"(%X, %pairs) : (memref<?xf32>, tensor<256xi32>) -> tensor<256xf32>
  %even = "tile.hint"(%raw) {contiguity = array<i64: 2>, divisibility = array<i64: 2>} : (tensor<256xi32>) -> tensor<256xi32>
  %b = "tile.load"(%X, %even) : (memref<?xf32>, tensor<256xi32>) -> tensor<256xf32>
  return
}

// -----

// A loop with a constant upper bound walks a dimension: the slice stays in
// bounds only when the bound is at most the static extent. Over a runtime
// extent (even one promised to be a multiple of the tile) nothing is known:
// `for k in range(0, 1024, 32)` over N = 100 leaves the tensor, so the mask
// stays. The bound of another tensor's runtime extent proves nothing either.
// CHECK-LABEL: func.func @constant_bounds
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: true, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: true, true>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg2, {{.*}}) {in_bounds = array<i1: true, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg3, {{.*}}) {in_bounds = array<i1: true, true>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: true, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: true, true>, vector_width = 4 : i64}
func.func @constant_bounds(%X: memref<32x?xf32> {tile.name = "X", tile.dims = ["32", "N"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                           %S: memref<32x1024xf32> {tile.name = "S", tile.dims = ["32", "1024"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                           %Z: memref<32x512xf32> {tile.name = "Z", tile.dims = ["32", "512"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                           %W: memref<32x2048xf32> {tile.name = "W", tile.dims = ["32", "2048"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                           %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["K"]})
    attributes {tile.kernel, tile.aligned = {N = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %n = memref.dim %X, %c1 : memref<32x?xf32>
  %nc = "tile.check_multiple"(%n) {divisor = 32 : i64, symbol = "N"} : (index) -> index
  %k = memref.dim %Y, %c0 : memref<?xf32>
  scf.for %kt = %c0 to %c1024 step %c32 {
    %x = "tile.load_slice"(%X, %c0, %kt) : (memref<32x?xf32>, index, index) -> tensor<32x32xf32>
    %s = "tile.load_slice"(%S, %c0, %kt) : (memref<32x1024xf32>, index, index) -> tensor<32x32xf32>
    %z = "tile.load_slice"(%Z, %c0, %kt) : (memref<32x512xf32>, index, index) -> tensor<32x32xf32>
    %w = "tile.load_slice"(%W, %c0, %kt) : (memref<32x2048xf32>, index, index) -> tensor<32x32xf32>
  }
  scf.for %kt = %c0 to %k step %c32 {
    %y = "tile.load_slice"(%X, %c0, %kt) : (memref<32x?xf32>, index, index) -> tensor<32x32xf32>
  }
  scf.for %kt = %c0 to %nc step %c32 {
    %v = "tile.load_slice"(%X, %c0, %kt) : (memref<32x?xf32>, index, index) -> tensor<32x32xf32>
  }
  return
}

// -----

// `block_id(0) * 32` along two extents, M and K: the grid rule disagrees, so
// the caller sizes the grid (cdiv(max(M, K), 32) would do) and neither start
// is known to stay inside its tensor: both slices keep the mask along
// dimension 0, although M and K are promised multiples of 32.
// CHECK-LABEL: func.func @grid_rule_disagrees
// CHECK: "tile.load_slice"(%arg0, {{.*}}) {in_bounds = array<i1: false, true>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: false, true>, vector_width = 4 : i64}
func.func @grid_rule_disagrees(%X: memref<?x16xf32> {tile.name = "X", tile.dims = ["M", "16"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                               %Y: memref<?x16xf32> {tile.name = "Y", tile.dims = ["K", "16"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>})
    attributes {tile.kernel, tile.aligned = {M = 32 : i64, K = 32 : i64}} {
  %c0 = arith.constant 0 : index
  %m = memref.dim %X, %c0 : memref<?x16xf32>
  %mc = "tile.check_multiple"(%m) {divisor = 32 : i64, symbol = "M"} : (index) -> index
  %k = memref.dim %Y, %c0 : memref<?x16xf32>
  %kc = "tile.check_multiple"(%k) {divisor = 32 : i64, symbol = "K"} : (index) -> index
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c32 = arith.constant 32 : index
  %r = arith.muli %pm, %c32 : index
  %x = "tile.load_slice"(%X, %r, %c0) : (memref<?x16xf32>, index, index) -> tensor<32x16xf32>
  %y = "tile.load_slice"(%Y, %r, %c0) : (memref<?x16xf32>, index, index) -> tensor<32x16xf32>
  return
}

// -----

// Starts that only look like the shapes that stay inside: a scalar argument
// (a block argument of the function, not of a loop), a scalar times the tile
// (not a block id), and a loop bounded by a static extent of another tensor:
// at most this one's (W, 2048 >= 1024) or larger (X, 1024 > 512).
// CHECK-LABEL: func.func @look_alikes
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: true, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: true, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg1, {{.*}}) {in_bounds = array<i1: true, false>, vector_width = 4 : i64}
// CHECK: "tile.load_slice"(%arg2, {{.*}}) {in_bounds = array<i1: true, true>, vector_width = 4 : i64}
func.func @look_alikes(%s: i32 {tile.name = "s", tile.divisibility = array<i64: 16>},
                       %X: memref<32x512xf32> {tile.name = "X", tile.dims = ["32", "512"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                       %W: memref<32x2048xf32> {tile.name = "W", tile.dims = ["32", "2048"], tile.ptr_align = 16 : i64, tile.stride_divisibility = array<i64: 16>},
                       %S: memref<32x1024xf32> {tile.name = "S", tile.dims = ["32", "1024"]})
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %si = arith.index_castui %s : i32 to index
  %a = "tile.load_slice"(%X, %c0, %si) : (memref<32x512xf32>, index, index) -> tensor<32x32xf32>
  %st = arith.muli %si, %c32 : index
  %b = "tile.load_slice"(%X, %c0, %st) : (memref<32x512xf32>, index, index) -> tensor<32x32xf32>
  %n = memref.dim %S, %c1 : memref<32x1024xf32>
  scf.for %kt = %c0 to %n step %c32 {
    %x = "tile.load_slice"(%X, %c0, %kt) : (memref<32x512xf32>, index, index) -> tensor<32x32xf32>
    %w = "tile.load_slice"(%W, %c0, %kt) : (memref<32x2048xf32>, index, index) -> tensor<32x32xf32>
  }
  return
}

// -----

// A load's fill value stays where its mask goes away (it is then never read)
// and where a slice is proven in bounds.
// CHECK-LABEL: func.func @padding_kept
// CHECK: "tile.load"(%arg0, %{{[^,]*}}) {padding = 0xFF800000 : f32, vector_width = 4 : i64} : (memref<?xf32>, tensor<256xi32>) -> tensor<256xf32>
// CHECK: "tile.load_slice"(%arg1, %{{.*}}) {in_bounds = array<i1: true>, padding = -1 : i32, vector_width = 4 : i64}
func.func @padding_kept(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 16 : i64},
                        %Y: memref<256xi32> {tile.name = "Y", tile.dims = ["256"], tile.ptr_align = 16 : i64})
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %true = arith.constant dense<true> : tensor<256xi1>
  %r = "tile.range"() {start = 0 : i64, end = 256 : i64} : () -> tensor<256xi32>
  %a = "tile.load"(%X, %r, %true) {padding = 0xFF800000 : f32} : (memref<?xf32>, tensor<256xi32>, tensor<256xi1>) -> tensor<256xf32>
  %b = "tile.load_slice"(%Y, %c0) {padding = -1 : i32} : (memref<256xi32>, index) -> tensor<256xi32>
  return
}
