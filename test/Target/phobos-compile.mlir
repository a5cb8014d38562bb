// `phobos compile` takes .mlir as well as .ph to every stage; `phobos aot`
// writes a folder. Bad input is one located line (or a `phobos: error:` line
// for the command line), exit status 1, never a traceback.
// RUN: phobos compile %s --emit=tile | FileCheck %s --check-prefix=TILE
// RUN: phobos compile %s --emit=gpu | FileCheck %s --check-prefix=GPU
// RUN: phobos compile %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: phobos compile %s --emit=gpu --key='X=a16.e16x16.s16;Y=a16.e16x16.s16' | FileCheck %s --check-prefix=KEYED
// RUN: phobos compile %S/Inputs/two-kernels.mlir --emit=gpu | FileCheck %s --check-prefix=BOTH
// RUN: not phobos compile %S/Inputs/two-kernels.mlir --emit=ptx 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=SEVERAL
// RUN: not phobos compile %S/Inputs/two-kernels.mlir --emit=ptx --kernel=third 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=NO-SUCH
// RUN: not phobos compile %s --emit=gpu --key='X=zz' 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=BAD-KEY
// RUN: not phobos compile %s --emit=gpu --features=+ptx60 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=OLD-PTX
// RUN: not phobos compile %s --emit=gpu --chip=sm_61 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=OLD-CHIP
// RUN: echo 'func.func @x( {' > %t.bad.mlir && not phobos compile %t.bad.mlir --emit=gpu 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=PARSE
// RUN: not phobos aot %s -o %t.aot --args 'f32[8] 2.0' 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=AOT-ARGS
// RUN: not phobos aot %s -o %t.aot --key=bad 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=AOT-KEY
// RUN: not phobos aot %S/does-not-exist.mlir -o %t.aot 2>&1 | FileCheck %s --implicit-check-not=Traceback --check-prefix=AOT-MISSING

// TILE: func.func @scale
// TILE: "tile.load_slice"
// TILE-NOT: tile.layout

// GPU: gpu.module @scale_module [#nvvm.target<chip = "sm_90", features = "+ptx80">]
// GPU: gpu.func @scale(

// LLVM: llvm.func @scale(
// LLVM-NOT: gpu.func

// KEYED: vector<4xf32>

// BOTH: gpu.func @first(
// BOTH: gpu.func @second(

// SEVERAL: phobos: error: {{.*}}two-kernels.mlir has several kernels (first, second); choose one with --kernel NAME
// NO-SUCH: phobos: error: --kernel: {{.*}}two-kernels.mlir has no kernel 'third' (it has first, second)
// BAD-KEY: phobos: error: --key: malformed scalar class 'zz' for 'X'
// OLD-PTX: phobos: error: features '+ptx60' are too old for sm_90: it needs +ptx80 or higher
// OLD-CHIP: phobos: error: chip 'sm_61' is not supported: Phobos needs sm_70 or newer
// PARSE: bad.mlir:1:14: error: expected non-function type
// AOT-ARGS: phobos: error: scale() takes 3 arguments
// AOT-KEY: phobos: error: --key: malformed specialisation entry 'bad' (expected name=facts)
// AOT-MISSING: phobos: error: {{.*}}does-not-exist.mlir

func.func @scale(%X: memref<?x?xf32> {tile.name = "X", tile.dims = ["M", "N"]},
                 %Y: memref<?x?xf32> {tile.name = "Y", tile.dims = ["M", "N"]}, %alpha: f32 {tile.name = "alpha"})
    attributes {tile.kernel} {
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %pm = "tile.block_id"() {dim = 0 : i64} : () -> index
  %pn = "tile.block_id"() {dim = 1 : i64} : () -> index
  %i = arith.muli %pm, %c32 : index
  %j = arith.muli %pn, %c128 : index
  %x = "tile.load_slice"(%X, %i, %j) : (memref<?x?xf32>, index, index) -> tensor<32x128xf32>
  %a = tensor.splat %alpha : tensor<32x128xf32>
  %y = arith.mulf %a, %x : tensor<32x128xf32>
  "tile.store_slice"(%y, %Y, %i, %j) : (tensor<32x128xf32>, memref<?x?xf32>, index, index) -> ()
  return
}
