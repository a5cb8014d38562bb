// The named pipelines run every stage from phobos-opt; tile-to-cubin calls the
// pip ptxas and leaves an ELF cubin in the gpu.binary. The compile driver
// prints the launch contract of the same kernel.
// REQUIRES: ptxas
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-to-gpu)' | FileCheck %s --check-prefix=GPU
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-to-llvm{chip=sm_90})' | FileCheck %s --check-prefix=NVVM
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-to-ptx)' | FileCheck %s --check-prefix=PTX
// RUN: phobos-opt %s --pass-pipeline='builtin.module(tile-to-cubin)' | FileCheck %s --check-prefix=CUBIN
// RUN: phobos compile %s --emit=contract | FileCheck %s --check-prefix=CONTRACT

// GPU: gpu.module @saxpy_module [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// GPU: gpu.func @saxpy(
// GPU-NOT: tile.

// NVVM: gpu.module @saxpy_module [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// NVVM: llvm.func @saxpy(
// NVVM-SAME: nvvm.kernel
// NVVM-NOT: gpu.func

// PTX: gpu.binary @saxpy_module
// PTX-SAME: assembly = "
// PTX-SAME: .visible .entry saxpy(

// CUBIN: gpu.binary @saxpy_module
// CUBIN-SAME: bin = "\7FELF

// CONTRACT: "abi": [
// CONTRACT-NEXT: {
// CONTRACT-NEXT: "kind": "ptr",
// CONTRACT-NEXT: "param": 0
// CONTRACT-NEXT: },
// CONTRACT-NEXT: {
// CONTRACT-NEXT: "axis": 0,
// CONTRACT-NEXT: "kind": "extent",
// CONTRACT-NEXT: "param": 0
// CONTRACT-NEXT: },
// CONTRACT-NEXT: {
// CONTRACT-NEXT: "kind": "ptr",
// CONTRACT-NEXT: "param": 1
// CONTRACT-NEXT: },
// CONTRACT-NEXT: {
// CONTRACT-NEXT: "kind": "scalar",
// CONTRACT-NEXT: "param": 2
// CONTRACT-NEXT: }
// CONTRACT-NEXT: ],
// CONTRACT: "grid": [
// CONTRACT-NEXT: {
// CONTRACT-NEXT: "symbol": "N",
// CONTRACT-NEXT: "tile": 1024
// CONTRACT-NEXT: },
// CONTRACT-NEXT: 1,
// CONTRACT-NEXT: 1
// CONTRACT-NEXT: ],
// CONTRACT: "kernel": "saxpy",
// CONTRACT: "access": "read",
// CONTRACT: "name": "X",
// CONTRACT: "access": "readwrite",
// CONTRACT: "name": "Y",
// CONTRACT: "threads": 256

func.func @saxpy(%X: memref<?xf32> {tile.name = "X", tile.dims = ["N"]},
                 %Y: memref<?xf32> {tile.name = "Y", tile.dims = ["N"]},
                 %a: f32 {tile.name = "a"}) attributes {tile.kernel} {
  %pid = "tile.block_id"() {dim = 0 : i64} : () -> index
  %c1024 = arith.constant 1024 : index
  %start = arith.muli %pid, %c1024 : index
  %x = "tile.load_slice"(%X, %start) : (memref<?xf32>, index) -> tensor<1024xf32>
  %y = "tile.load_slice"(%Y, %start) : (memref<?xf32>, index) -> tensor<1024xf32>
  %as = tensor.splat %a : tensor<1024xf32>
  %ax = arith.mulf %as, %x : tensor<1024xf32>
  %z = arith.addf %ax, %y : tensor<1024xf32>
  "tile.store_slice"(%z, %Y, %start) : (tensor<1024xf32>, memref<?xf32>, index) -> ()
  return
}
