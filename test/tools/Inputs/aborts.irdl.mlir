// An IRDL dialect that makes MLIR 22 abort while loading it: irdl.any_of over
// irdl.base constraints reaches an UNREACHABLE in IRDLLoading.cpp.
irdl.dialect @aborts {
  irdl.type @t {
    %0 = irdl.base "!builtin.integer"
    %1 = irdl.base "!builtin.f32"
    %2 = irdl.any_of(%0, %1)
    irdl.parameters(p: %2)
  }
}
