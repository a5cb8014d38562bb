// Kernel and argument attributes of the wrong type, length or value, and
// parameters no pass can read: tile-verify names the attribute and what it
// expects, at the kernel or at the parameter. Each Phobos pass runs the same
// checks first, so a pass alone (here tile-elide-masks and tile-lower-to-gpu)
// reports the same errors instead of failing inside Python.
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-verify
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-elide-masks
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-lower-to-gpu

// expected-error @below {{'func.func' op has a malformed kernel attribute: 'tile.launch' must be a dictionary of integers, got {threads = "x"}}}
func.func @k() attributes {tile.kernel, tile.launch = {threads = "x"}} {
  return
}

// -----

// expected-error @below {{'tile.launch' must be a dictionary of integers, got 256 : i64}}
func.func @k() attributes {tile.kernel, tile.launch = 256 : i64} {
  return
}

// -----

// expected-error @below {{expects tile.launch max_regs to be a non-negative 32-bit integer, got -1}}
func.func @k() attributes {tile.kernel, tile.launch = {threads = 128 : i64, max_regs = -1 : i64}} {
  return
}

// -----

// expected-error @below {{'tile.aligned' must be a dictionary of integers, got {M = 1.500000e+00 : f32}}}
func.func @k() attributes {tile.kernel, tile.aligned = {M = 1.5 : f32}} {
  return
}

// -----

// expected-error @below {{'tile.bindings' must be a dictionary of integers, got {TM = "a"}}}
func.func @k() attributes {tile.kernel, tile.bindings = {TM = "a"}} {
  return
}

// -----

// expected-error @below {{'tile.autotune' must be a dictionary of array<i64>, got {TM = [32, 64]}}}
func.func @k() attributes {tile.kernel, tile.autotune = {TM = [32, 64]}} {
  return
}

// -----

// expected-error @below {{'tile.pipeline' must be a unit attribute, got 3 : i64}}
func.func @k() attributes {tile.kernel, tile.pipeline = 3 : i64} {
  return
}

// -----

// tile.pipeline_depth (@pipeline(S)): an integer from 2 to 8, beside tile.pipeline.
// expected-error @below {{'tile.pipeline_depth' must be an integer, got "4"}}
func.func @k() attributes {tile.kernel, tile.pipeline, tile.pipeline_depth = "4"} {
  return
}

// -----

// expected-error @below {{expects tile.pipeline_depth from 2 to 8, got 1}}
func.func @k() attributes {tile.kernel, tile.pipeline, tile.pipeline_depth = 1 : i64} {
  return
}

// -----

// expected-error @below {{carries tile.pipeline_depth without tile.pipeline}}
func.func @k() attributes {tile.kernel, tile.pipeline_depth = 4 : i64} {
  return
}

// -----

// tile.extent_blocks: {symbol = {of = "K", block = N}} with a positive block.
// expected-error @below {{'tile.extent_blocks' must be a dictionary of {of = "K", block = 32 : i64}, got {KB = 32 : i64}}}
func.func @k() attributes {tile.kernel, tile.extent_blocks = {KB = 32 : i64}} {
  return
}

// -----

// expected-error @below {{expects tile.extent_blocks KB to have a positive block, got 0}}
func.func @k() attributes {tile.kernel, tile.extent_blocks = {KB = {of = "K", block = 0 : i64}}} {
  return
}

// -----

// expected-error @below {{'tile.kernel' must be a unit attribute, got "yes"}}
func.func @k() attributes {tile.kernel = "yes"} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.layout to be a #tile.blocked layout, got "x"}}
func.func @k() attributes {tile.kernel, tile.layout = "x"} {
  return
}

// -----

// The argument's errors point at the argument.
// expected-error @below {{'func.func' op has a malformed attribute on parameter 0: 'tile.dims' must be an array of strings, got [1, 2]}}
func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = [1, 2]}) attributes {tile.kernel} {
  return
}

// -----

func.func @k(%A: memref<?xf32> {tile.name = "A", tile.dims = ["N"]},
             // expected-error @below {{malformed attribute on parameter 1: 'tile.name' must be a string, got 3 : i64}}
             %B: memref<?xf32> {tile.name = 3 : i64, tile.dims = ["N"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.dims of 'X' to have 2 entries, got 1}}
func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.divisibility of 'X' to have 2 entries, got 1}}
func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.divisibility = array<i64: 16>}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.divisibility of 'X' to hold positive powers of two, got [16, 3]}}
func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.divisibility = array<i64: 16, 3>}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'tile.divisibility' must be an array<i64>, got [16, 16]}}
func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.divisibility = [16, 16]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.divisibility of 'n' to have 1 entry, got 2}}
func.func @k(%n: i32 {tile.name = "n", tile.divisibility = array<i64: 4, 4>}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op gives parameter 'x' of type f32 tile.divisibility}}
func.func @k(%x: f32 {tile.name = "x", tile.divisibility = array<i64: 4>}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.stride_divisibility of 'X' to have 1 entry, got 2}}
func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"], tile.stride_divisibility = array<i64: 16, 16>}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'tile.ptr_align' must be an integer, got "a"}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = "a"}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.ptr_align of 'X' to be a positive power of two, got 12}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"], tile.ptr_align = 12 : i64}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op gives parameter 'n' of type i32 tile.ptr_align}}
func.func @k(%n: i32 {tile.name = "n", tile.ptr_align = 16 : i64}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tensor parameter 'X' to have rank 1 or more, got memref<f32>}}
func.func @k(%X: memref<f32> {tile.name = "X", tile.dims = []}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tensor parameter 'X' to hold integers or floats, got memref<?xcomplex<f32>>}}
func.func @k(%X: memref<?xcomplex<f32>> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tensor parameter 'X' to have a strided layout, got memref<?x?xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>>}}
func.func @k(%X: memref<?x?xf32, affine_map<(d0, d1) -> (d0 floordiv 2, d1)>> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tensor parameter 'X' in the default memory space, got memref<?xf32, 3>}}
func.func @k(%X: memref<?xf32, 3> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op is a tile kernel without a body}}
func.func private @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel}

// -----

// expected-error @below {{'llvm.func' op carries tile.kernel, but only a func.func can be a tile kernel}}
llvm.func @k() attributes {tile.kernel} {
  llvm.return
}

// -----

func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects vector_width to be a positive power of two integer, got "4"}}
  %x = "tile.load_slice"(%X, %c0, %c0) {vector_width = "4"} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  return
}

// -----

func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects vector_width to be a positive power of two integer, got 3 : i64}}
  %x = "tile.load_slice"(%X, %c0, %c0) {vector_width = 3 : i64} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects vector_width 8 not to exceed the last tile extent 4}}
  %x = "tile.load_slice"(%X, %c0) {vector_width = 8 : i64} : (memref<?xf32>, index) -> tensor<4xf32>
  return
}

// -----

func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.load_slice' op expects in_bounds to be an array<i1> with 2 entries, got [true, true]}}
  %x = "tile.load_slice"(%X, %c0, %c0) {in_bounds = [true, true]} : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  return
}
