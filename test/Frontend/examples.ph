// The kernels in examples/ compile to tile IR that tile-verify accepts.
// RUN: phobos check %S/../../examples/scale.ph
// RUN: phobos check %S/../../examples/saxpy.ph
// RUN: phobos check %S/../../examples/gemm_fp32.ph
// RUN: phobos compile %S/../../examples/scale.ph | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s --check-prefix=SCALE
// RUN: phobos compile %S/../../examples/saxpy.ph | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s --check-prefix=SAXPY
// RUN: phobos compile %S/../../examples/gemm_fp32.ph | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s --check-prefix=GEMM

// SCALE: func.func @scale(
// SCALE: "tile.store_slice"({{.*}}) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()

// SAXPY: func.func @saxpy(%[[X:.*]]: memref<?xf32> {tile.dims = ["N"], tile.name = "X"}, %[[Y:.*]]: memref<?xf32> {tile.dims = ["N"], tile.name = "Y"}, %[[A:.*]]: f32 {tile.name = "a"})
// SAXPY-SAME: tile.autotune = {BLOCK = array<i64: 256, 512, 1024>}, tile.bindings = {BLOCK = 256 : i64}
// SAXPY: %[[OLD:.*]] = "tile.load_slice"(%[[Y]], %[[S:.*]]) : (memref<?xf32>, index) -> tensor<256xf32>
// SAXPY: %[[XT:.*]] = "tile.load_slice"(%[[X]], %[[S]]) : (memref<?xf32>, index) -> tensor<256xf32>
// SAXPY: %[[AX:.*]] = arith.mulf %{{.*}}, %[[XT]] : tensor<256xf32>
// SAXPY: %[[NEW:.*]] = arith.addf %[[OLD]], %[[AX]] : tensor<256xf32>
// SAXPY: "tile.store_slice"(%[[NEW]], %[[Y]], %[[S]]) : (tensor<256xf32>, memref<?xf32>, index) -> ()

// GEMM: func.func @gemm(
// GEMM: scf.for
// GEMM: "tile.dot"
// GEMM: "tile.store_slice"
