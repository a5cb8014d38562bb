// The `scale` kernel of examples/scale.ph written directly in tile IR:
// Y = alpha * X on 32x128 tiles, with the promise that M and N are whole
// numbers of tiles (checked at entry by tile.check_multiple).
//
//   phobos-opt examples/scale.mlir --pass-pipeline='builtin.module(tile-verify)'
func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]},
                 %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel, tile.launch = {threads = 256 : i64}, tile.aligned = {M = 32 : i64, N = 128 : i64}} {
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
  %x = "tile.load_slice"(%X, %row, %col) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %row, %col) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
