func.func @first(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  return
}
func.func @second(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]}) attributes {tile.kernel} {
  return
}
