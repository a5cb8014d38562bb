// tile-inline refuses a cycle of calls (recursion), at the first function of the cycle.
// RUN: phobos-opt %s --verify-diagnostics --pass-pipeline='builtin.module(tile-inline)'

// expected-error @below {{func.func: recursive calls (@ping -> @pong -> @ping) cannot be inlined}}
func.func private @ping(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @pong(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @pong(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @ping(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @k(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %x = "tile.load_slice"(%X, %c0) : (memref<?xf32>, index) -> tensor<4xf32>
  %y = func.call @ping(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "tile.store_slice"(%y, %X, %c0) : (tensor<4xf32>, memref<?xf32>, index) -> ()
  return
}
