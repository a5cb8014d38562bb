// Kernel parameters of element types the ABI cannot carry (hand-written tile IR): a located
// error at the parameter that names it, its type and the supported types; never an internal
// error or a traceback. The kernel checks (dialect/verify.py) refuse them: f80 and complex at
// the kernel (not numbers), i16 and index at the parameter with the ABI's message
// (analysis/abi.py). tile-verify and phobos check run those checks, and so does every pass
// first (tile-elide-masks would read the parameters where a slice starts at ctx.block * tile).
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-verify
// RUN: not phobos check %s 2>&1 | FileCheck %s --check-prefix=PCHECK --implicit-check-not=Traceback --implicit-check-not="internal"
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --tile-elide-masks
// RUN: not phobos-opt %s --split-input-file --tile-to-gpu 2>&1 | FileCheck %s --check-prefix=OPT --implicit-check-not=Traceback --implicit-check-not="internal error"
// RUN: not phobos compile %s --kernel i16 --emit=gpu 2>&1 | FileCheck %s --check-prefix=I16 --implicit-check-not=Traceback --implicit-check-not="internal"
// RUN: not phobos compile %s --kernel index --emit=contract 2>&1 | FileCheck %s --check-prefix=INDEX --implicit-check-not=Traceback --implicit-check-not="internal"
// RUN: not phobos explain %s --kernel scalar_i16 2>&1 | FileCheck %s --check-prefix=SCALAR --implicit-check-not=Traceback --implicit-check-not="internal"

// PCHECK: param-types-invalid.mlir:[[# @LINE + 6]]:14: error: tensor parameter 'X' has element type i16; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2
// OPT: param-types-invalid.mlir:[[# @LINE + 5]]:14: error: tensor parameter 'X' has element type i16; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2
// OPT-NEXT: {{^}}             %X: memref<?xi16>
// OPT-NEXT: {{^}}             ^
// I16: param-types-invalid.mlir:[[# @LINE + 2]]:14: error: tensor parameter 'X' has element type i16; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2
func.func @i16(%Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
             %X: memref<?xi16> {tile.name = "X", tile.dims = ["N"]}) // expected-error {{tensor parameter 'X' has element type i16; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2}}
    attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c128 = arith.constant 128 : index
  %off = arith.muli %pid, %c128 : index
  %y = "tile.load_slice"(%Y, %off) : (memref<?xf32>, index) -> tensor<128xf32>
  "tile.store_slice"(%y, %Y, %off) : (tensor<128xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// PCHECK: param-types-invalid.mlir:[[# @LINE + 3]]:14: error: tensor parameter 'I' has element type index; supported:
// INDEX: param-types-invalid.mlir:[[# @LINE + 2]]:14: error: tensor parameter 'I' has element type index; supported:
func.func @index(%Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
             %I: memref<?xindex> {tile.name = "I", tile.dims = ["N"]}) // expected-error {{tensor parameter 'I' has element type index; supported:}}
    attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c128 = arith.constant 128 : index
  %off = arith.muli %pid, %c128 : index
  %y = "tile.load_slice"(%Y, %off) : (memref<?xf32>, index) -> tensor<128xf32>
  "tile.store_slice"(%y, %Y, %off) : (tensor<128xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// PCHECK: param-types-invalid.mlir:[[# @LINE + 2]]:1: error: 'func.func' op expects tensor parameter 'X' to hold integers or floats, got memref<?xf80>
// expected-error@below {{'func.func' op expects tensor parameter 'X' to hold integers or floats, got memref<?xf80>}}
func.func @f80(%Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
             %X: memref<?xf80> {tile.name = "X", tile.dims = ["N"]})
    attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c128 = arith.constant 128 : index
  %off = arith.muli %pid, %c128 : index
  %y = "tile.load_slice"(%Y, %off) : (memref<?xf32>, index) -> tensor<128xf32>
  "tile.store_slice"(%y, %Y, %off) : (tensor<128xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// PCHECK: param-types-invalid.mlir:[[# @LINE + 2]]:1: error: 'func.func' op expects tensor parameter 'X' to hold integers or floats, got memref<?xcomplex<f32>>
// expected-error@below {{'func.func' op expects tensor parameter 'X' to hold integers or floats, got memref<?xcomplex<f32>>}}
func.func @complex(%Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
             %X: memref<?xcomplex<f32>> {tile.name = "X", tile.dims = ["N"]})
    attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c128 = arith.constant 128 : index
  %off = arith.muli %pid, %c128 : index
  %y = "tile.load_slice"(%Y, %off) : (memref<?xf32>, index) -> tensor<128xf32>
  "tile.store_slice"(%y, %Y, %off) : (tensor<128xf32>, memref<?xf32>, index) -> ()
  return
}

// -----

// PCHECK: param-types-invalid.mlir:[[# @LINE + 4]]:14: error: scalar parameter 's' has type i16; supported:
// PCHECK: 5 errors generated.
// SCALAR: param-types-invalid.mlir:[[# @LINE + 2]]:14: error: scalar parameter 's' has type i16; supported:
func.func @scalar_i16(%Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
             %s: i16 {tile.name = "s"}) // expected-error {{scalar parameter 's' has type i16; supported:}}
    attributes {tile.kernel, tile.launch = {threads = 128 : i64}} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c128 = arith.constant 128 : index
  %off = arith.muli %pid, %c128 : index
  %y = "tile.load_slice"(%Y, %off) : (memref<?xf32>, index) -> tensor<128xf32>
  "tile.store_slice"(%y, %Y, %off) : (tensor<128xf32>, memref<?xf32>, index) -> ()
  return
}
