// A tile op without its required attribute (tile.block_id needs "dim").
func.func @f() {
  %0 = "tile.block_id"() : () -> index
  return
}
