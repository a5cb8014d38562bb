// Every rule of the tile dialect that a user can break, one per chunk: the
// IRDL constraints (checked while parsing) and the tile-verify rules.
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-verify)'

// expected-error @below {{unregistered operation 'tile.frobnicate' found in dialect ('tile')}}
%0 = "tile.frobnicate"() : () -> index

// -----

// expected-error @below {{expected base attribute 'builtin.integer' but got 'builtin.string'}}
%0 = "tile.block_id"() {dim = "x"} : () -> index

// -----

// expected-error @below {{attribute "dim" is expected but not provided}}
%0 = "tile.block_id"() : () -> index

// -----

// expected-error @below {{expected base type 'builtin.tensor' but got 'builtin.integer'}}
%0 = "tile.range"() {start = 0 : i64, end = 4 : i64} : () -> i32

// -----

func.func @k() attributes {tile.kernel} {
  // expected-error @below {{'tile.block_id' op expects dim to be 0, 1 or 2, got 3}}
  %0 = "tile.block_id"() {dim = 3 : i64} : () -> index
  return
}

// -----

func.func @not_a_kernel() {
  // expected-error @below {{'tile.block_id' op must be inside a tile kernel (a func.func with the tile.kernel attribute)}}
  %0 = "tile.block_id"() {dim = 0 : i64} : () -> index
  return
}

// -----

func.func @k() attributes {tile.kernel} {
  // expected-error @below {{'tile.range' op expects 0 <= start < end, got start = 4, end = 4}}
  %0 = "tile.range"() {start = 4 : i64, end = 4 : i64} : () -> tensor<1xi32>
  return
}

// -----

func.func @k() attributes {tile.kernel} {
  // expected-error @below {{'tile.range' op expects a 1-D result of extent end - start = 128, got tensor<64xi32>}}
  %0 = "tile.range"() {start = 0 : i64, end = 128 : i64} : () -> tensor<64xi32>
  return
}

// -----

func.func @k() attributes {tile.kernel} {
  // expected-error @below {{'tile.range' op expects an integer or index element type, got f32}}
  %0 = "tile.range"() {start = 0 : i64, end = 4 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @k(%t: tensor<?xi32>) {
  // expected-error @below {{'tile.broadcast' op expects the source to have a static shape, got tensor<?xi32>}}
  %0 = "tile.broadcast"(%t) : (tensor<?xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @k(%t: tensor<2x4xi32>) {
  // expected-error @below {{'tile.broadcast' op cannot broadcast dimension 0 of extent 2 to 8 (only extent 1 broadcasts)}}
  %0 = "tile.broadcast"(%t) : (tensor<2x4xi32>) -> tensor<8x4xi32>
  return
}

// -----

func.func @k(%t: tensor<1x4xi32>) {
  // expected-error @below {{'tile.broadcast' op expects the result rank 1 to equal the source rank 2}}
  %0 = "tile.broadcast"(%t) : (tensor<1x4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @k(%t: tensor<1x4xi32>) {
  // expected-error @below {{'tile.broadcast' op expects the result element type i64 to equal the source's i32}}
  %0 = "tile.broadcast"(%t) : (tensor<1x4xi32>) -> tensor<2x4xi64>
  return
}

// -----

func.func @k(%t: tensor<2x4xf32>) {
  // expected-error @below {{'tile.transpose' op expects permutation to be a permutation of 0..1, got [0, 0]}}
  %0 = "tile.transpose"(%t) {permutation = array<i64: 0, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @k(%t: tensor<2x4xf32>) {
  // expected-error @below {{'tile.transpose' op expects result type tensor<4x2xf32>, got tensor<2x4xf32>}}
  %0 = "tile.transpose"(%t) {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @k(%t: tensor<2x4xf32>) {
  // expected-error @below {{'tile.convert_layout' op expects the result type to be the source's, tensor<2x4xf32>, got tensor<4x2xf32>}}
  %0 = "tile.convert_layout"(%t) : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.load_slice' op expects 2 start indices (one per dimension of the base), got 1}}
  %0 = "tile.load_slice"(%A, %i) : (memref<?x?xf32>, index) -> tensor<32x32xf32>
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.load_slice' op expects the tile rank 1 to equal the base rank 2}}
  %0 = "tile.load_slice"(%A, %i, %i) : (memref<?x?xf32>, index, index) -> tensor<32xf32>
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.load_slice' op expects the tile element type f16 to equal the base's f32}}
  %0 = "tile.load_slice"(%A, %i, %i) : (memref<?x?xf32>, index, index) -> tensor<32x32xf16>
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.load_slice' op expects in_bounds to be an array<i1> with 2 entries, got array<i1: true>}}
  %0 = "tile.load_slice"(%A, %i, %i) {in_bounds = array<i1: true>} : (memref<?x?xf32>, index, index) -> tensor<32x32xf32>
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.load_slice' op expects padding to be a scalar attribute of the element type f32, got 0xFFF0000000000000 : f64}}
  %0 = "tile.load_slice"(%A, %i, %i) {padding = 0xFFF0000000000000 : f64} : (memref<?x?xf32>, index, index) -> tensor<32x32xf32>
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.load_slice' op expects padding to be a scalar attribute of the element type f32, got 0 : i32}}
  %0 = "tile.load_slice"(%A, %i, %i) {padding = 0 : i32} : (memref<?x?xf32>, index, index) -> tensor<32x32xf32>
  return
}

// -----

func.func @k(%B: memref<?xi32> {tile.dims = ["K"]}) attributes {tile.kernel} {
  %o = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  %m = arith.constant dense<true> : tensor<64xi1>
  // expected-error @below {{'tile.load' op expects padding to be a scalar attribute of the element type i32, got "zero"}}
  %0 = "tile.load"(%B, %o, %m) {padding = "zero"} : (memref<?xi32>, tensor<64xi32>, tensor<64xi1>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%B: memref<?xi32> {tile.dims = ["K"]}) attributes {tile.kernel} {
  %o = "tile.range"() {start = 0 : i64, end = 64 : i64} : () -> tensor<64xi32>
  // expected-error @below {{'tile.load' op expects padding to be a scalar attribute of the element type i32, got -1 : i64}}
  %0 = "tile.load"(%B, %o) {padding = -1 : i64} : (memref<?xi32>, tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index, %v: tensor<32x32xf32>) {
  // expected-error @below {{'tile.store_slice' op expects 2 start indices (one per dimension of the base), got 3}}
  "tile.store_slice"(%v, %A, %i, %i, %i) : (tensor<32x32xf32>, memref<?x?xf32>, index, index, index) -> ()
  return
}

// -----

func.func @k(%A: memref<?x?xf32> {tile.dims = ["M", "N"]}, %i: index, %v: tensor<32x32xi32>) {
  // expected-error @below {{'tile.store_slice' op expects the tile element type i32 to equal the base's f32}}
  "tile.store_slice"(%v, %A, %i, %i) : (tensor<32x32xi32>, memref<?x?xf32>, index, index) -> ()
  return
}

// -----

func.func @k(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xf32>) {
  // expected-error @below {{'tile.load' op expects integer or index offsets, got f32}}
  %0 = "tile.load"(%B, %o) : (memref<?xf32>, tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @k(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xi32>) {
  // expected-error @below {{'tile.load' op expects the result to have the offsets' shape [64], got [32]}}
  %0 = "tile.load"(%B, %o) : (memref<?xf32>, tensor<64xi32>) -> tensor<32xf32>
  return
}

// -----

func.func @k(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xi32>, %m: tensor<64xi32>) {
  // expected-error @below {{'tile.load' op expects the mask to be tensor<64xi1>, got tensor<64xi32>}}
  %0 = "tile.load"(%B, %o, %m) : (memref<?xf32>, tensor<64xi32>, tensor<64xi32>) -> tensor<64xf32>
  return
}

// -----

func.func @k(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xi32>, %v: tensor<64xf16>) {
  // expected-error @below {{'tile.store' op expects the stored value element type f16 to equal the base's f32}}
  "tile.store"(%v, %B, %o) : (tensor<64xf16>, memref<?xf32>, tensor<64xi32>) -> ()
  return
}

// -----

func.func @k(%a: tensor<32x8xf32>, %b: tensor<4x128xf32>, %c: tensor<32x128xf32>) {
  // expected-error @below {{'tile.dot' op expects lhs columns to equal rhs rows, got [32, 8] x [4, 128]}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<32x8xf32>, tensor<4x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @k(%a: tensor<32x8xf32>, %b: tensor<8x128xf32>, %c: tensor<32x64xf32>) {
  // expected-error @below {{'tile.dot' op expects an accumulator of shape [32, 128], got [32, 64]}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<32x8xf32>, tensor<8x128xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  return
}

// -----

func.func @k(%a: tensor<32x8xf16>, %b: tensor<8x128xf32>, %c: tensor<32x128xf32>) {
  // expected-error @below {{'tile.dot' op expects lhs and rhs to share an element type, got f16 and f32}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<32x8xf16>, tensor<8x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @k(%a: tensor<32x8xf32>, %b: tensor<8x128xf32>, %c: tensor<32x128xf32>) {
  // expected-error @below {{'tile.dot' op expects the result type tensor<32x128xf16> to equal the accumulator type tensor<32x128xf32>}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<32x8xf32>, tensor<8x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf16>
  return
}

// -----

func.func @k(%a: tensor<32x16xf16>, %b: tensor<16x128xf16>, %c: tensor<32x128xf32>) {
  // expected-error @below {{'tile.dot' op expects tile.unsigned (u8 operands) only on 8-bit integer operands with an integer accumulator, got f16 operands and a f32 accumulator}}
  %0 = "tile.dot"(%a, %b, %c) {tile.unsigned} : (tensor<32x16xf16>, tensor<16x128xf16>, tensor<32x128xf32>) -> tensor<32x128xf32>
  return
}

// -----

func.func @k(%a: tensor<32x32xi8>, %b: tensor<32x128xi8>, %c: tensor<32x128xi32>) {
  // expected-error @below {{'tile.dot' op expects tile.unsigned to be a unit attribute}}
  %0 = "tile.dot"(%a, %b, %c) {tile.unsigned = 1 : i32} : (tensor<32x32xi8>, tensor<32x128xi8>, tensor<32x128xi32>) -> tensor<32x128xi32>
  return
}

// -----

func.func @k(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) {
  // expected-error @below {{'tile.dot' op expects 2-D operands}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @k(%t: tensor<4x8xf32>) {
  // expected-error @below {{'tile.reduce' op expects kind to be one of 'sum', 'max', 'min', got 'prod'}}
  %0 = "tile.reduce"(%t) {kind = "prod", axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @k(%t: tensor<4x8xf32>) {
  // expected-error @below {{'tile.reduce' op expects 0 <= axis < 2, got 2}}
  %0 = "tile.reduce"(%t) {kind = "sum", axis = 2 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @k(%t: tensor<4x8xf32>) {
  // expected-error @below {{'tile.reduce' op expects result type tensor<8xf32>, got tensor<4xf32>}}
  %0 = "tile.reduce"(%t) {kind = "sum", axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @k(%t: tensor<4x8xf32>) {
  // expected-error @below {{'tile.scan' op expects kind to be one of 'sum', got 'max'}}
  %0 = "tile.scan"(%t) {kind = "max", axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @k(%t: tensor<4x8xf32>) {
  // expected-error @below {{'tile.scan' op expects the result type to equal the source type tensor<4x8xf32>}}
  %0 = "tile.scan"(%t) {kind = "sum", axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @k(%t: tensor<64xi32>) {
  // expected-error @below {{'tile.hint' op expects contiguity to have 1 entry (one per dimension), got 2}}
  %0 = "tile.hint"(%t) {contiguity = array<i64: 64, 1>} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%t: tensor<64xi32>) {
  // expected-error @below {{'tile.hint' op expects divisibility[0] to be a positive power of two, got 12}}
  %0 = "tile.hint"(%t) {divisibility = array<i64: 12>} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%t: tensor<64xi32>) {
  // expected-error @below {{'tile.hint' op expects constancy[0] = 128 not to exceed the extent 64 of dimension 0}}
  %0 = "tile.hint"(%t) {constancy = array<i64: 128>} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%t: tensor<64xi32>) {
  // expected-error @below {{'tile.hint' op expects at least one of divisibility, contiguity, constancy}}
  %0 = "tile.hint"(%t) : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%t: tensor<64xf32>) {
  // expected-error @below {{'tile.hint' op expects an integer or index scalar or tile, got tensor<64xf32>}}
  %0 = "tile.hint"(%t) {divisibility = array<i64: 4>} : (tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @k(%t: tensor<64xi32>) {
  // expected-error @below {{'tile.hint' op expects divisibility to be an array<i64>, got [4]}}
  %0 = "tile.hint"(%t) {divisibility = [4]} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @k(%i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.hint' op expects contiguity of a scalar to be 1, got 4}}
  %0 = "tile.hint"(%i) {contiguity = array<i64: 4>} : (index) -> index
  return
}

// -----

func.func @k(%i: index) attributes {tile.kernel} {
  // expected-error @below {{'tile.hint' op expects the result type i32 to equal the operand type index}}
  %0 = "tile.hint"(%i) {divisibility = array<i64: 4>} : (index) -> i32
  return
}

// -----

func.func @k(%A: memref<?xf32> {tile.dims = ["N"]}) attributes {tile.kernel, tile.aligned = {N = 16 : i64}} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %A, %c0 : memref<?xf32>
  // expected-error @below {{'tile.check_multiple' op expects a positive divisor, got 0}}
  %0 = "tile.check_multiple"(%n) {divisor = 0 : i64, symbol = "N"} : (index) -> index
  %1 = "tile.check_multiple"(%n) {divisor = 16 : i64, symbol = "N"} : (index) -> index
  return
}

// -----

func.func @k(%i: index) attributes {tile.kernel} {
  scf.execute_region {
    // expected-error @below {{'tile.check_multiple' op must be at the top level of a tile kernel (it checks a promise at entry)}}
    %0 = "tile.check_multiple"(%i) {divisor = 4 : i64, symbol = "N"} : (index) -> index
    scf.yield
  }
  return
}

// -----

// expected-error @below {{'func.func' op tile kernels return nothing; results are stored to tensor parameters}}
func.func @k() -> index attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  return %c0 : index
}

// -----

// expected-error @below {{'func.func' op expects tile.launch threads to be a multiple of 32 between 32 and 1024, got 100}}
func.func @k() attributes {tile.kernel, tile.launch = {threads = 100 : i64}} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.autotune 'TM' to list positive values, got [0, 32]}}
func.func @k() attributes {tile.kernel, tile.autotune = {TM = array<i64: 0, 32>}} {
  return
}

// -----

// expected-error @below {{'func.func' op binds 'TM' = 48, which is not in its autotune space [32, 64]}}
func.func @k() attributes {tile.kernel, tile.autotune = {TM = array<i64: 32, 64>}, tile.bindings = {TM = 48 : i64}} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tensor parameter 'X' to name its dimensions with tile.dims}}
func.func @k(%X: memref<?xf32> {tile.name = "X"}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.dims of 'X' to have 2 entries, got 1}}
func.func @k(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op gives dimension 0 of 'X' the literal extent 64, but its type is memref<?xf32>}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["64"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects dimension names of 'X' to be identifiers or integers, got 'M+1'}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["M+1"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op gives symbol 'K' different static extents [16, 32] (in A, B)}}
func.func @k(%A: memref<16xf32> {tile.name = "A", tile.dims = ["K"]}, %B: memref<32xf32> {tile.name = "B", tile.dims = ["K"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects tensor parameter 'X' to be contiguous along its last dimension, got memref<?x?xf32, strided<[1, ?]>>}}
func.func @k(%X: memref<?x?xf32, strided<[1, ?]>> {tile.name = "X", tile.dims = ["M", "N"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op expects parameter 'v' to be a memref (tensor) or a scalar, got vector<4xf32>}}
func.func @k(%v: vector<4xf32> {tile.name = "v"}) attributes {tile.kernel} {
  return
}

// -----

// Parameter element types a launch cannot carry (the kernel ABI's, analysis/abi.py): at the parameter.
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
             %H: memref<?xi16> {tile.name = "H", tile.dims = ["N"]}) attributes {tile.kernel} { // expected-error {{tensor parameter 'H' has element type i16; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2}}
  return
}

// -----

func.func @k(%I: memref<?xindex> {tile.name = "I", tile.dims = ["N"]}) attributes {tile.kernel} { // expected-error {{tensor parameter 'I' has element type index; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2}}
  return
}

// -----

func.func @k(%T: memref<?xtf32> {tile.name = "T", tile.dims = ["N"]}) attributes {tile.kernel} { // expected-error {{tensor parameter 'T' has element type tf32; supported:}}
  return
}

// -----

func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
             %s: i16 {tile.name = "s"}, // expected-error {{scalar parameter 's' has type i16; supported: f16, bf16, f32, f64, i1, i8, u8, i32, u32, i64, f8e4m3, f8e5m2}}
             %n: index {tile.name = "n"},
             %w: i128 {tile.name = "w"}) attributes {tile.kernel} { // expected-error {{scalar parameter 'w' has type i128; supported:}}
  return
}

// -----

// tile.unsigned makes u8 and u32 of i8 and i32 only.
func.func @k(%X: memref<?xi8> {tile.name = "X", tile.dims = ["N"], tile.unsigned},
             %n: i64 {tile.name = "n", tile.unsigned}) attributes {tile.kernel} { // expected-error {{scalar parameter 'n' has type unsigned i64; supported:}}
  return
}

// -----

// expected-error @below {{'func.func' op gives scalar parameter 'n' tile.dims}}
func.func @k(%n: i32 {tile.name = "n", tile.dims = ["N"]}) attributes {tile.kernel} {
  return
}

// -----

// expected-error @below {{'func.func' op promises 'K' is aligned, but no tensor parameter has a dimension 'K'}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel, tile.aligned = {K = 16 : i64}} {
  return
}

// -----

// expected-error @below {{'func.func' op promises 'N' is a multiple of 0; the divisor must be positive}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel, tile.aligned = {N = 0 : i64}} {
  return
}

// -----

// expected-error @below {{'func.func' op promises 'N' is a multiple of 16, but its static extent is 40}}
func.func @k(%X: memref<40xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel, tile.aligned = {N = 16 : i64}} {
  return
}

// -----

// expected-error @below {{'func.func' op promises 'N' is a multiple of 16 but does not check it at entry}}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel, tile.aligned = {N = 16 : i64}} {
  return
}

// -----

// expected-error @below {{'func.func' op has a malformed kernel attribute}}
func.func @k() attributes {tile.kernel, tile.launch = {threads = "many"}} {
  return
}
