// u8 and u32: signless i8/i32 in tile IR with the unsigned ops where signedness
// matters, parameters marked tile.unsigned (the contract's dtype), and the PTX.
// RUN: phobos compile %S/Inputs/unsigned-ops.ph --emit=tile | FileCheck %s --check-prefix=IR
// RUN: phobos compile %S/Inputs/unsigned-ops.ph --chip=sm_90 --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %S/Inputs/unsigned-ops.ph --emit=contract | FileCheck %s --check-prefix=CONTRACT
// RUN: phobos compile %S/Inputs/unsigned-reductions.ph --emit=tile | FileCheck %s --check-prefix=RED
// RUN: phobos compile %S/Inputs/unsigned-promotion.ph --emit=tile | FileCheck %s --check-prefix=PROM
// RUN: phobos compile %S/Inputs/unsigned-reductions.ph --chip=sm_80 --emit=ptx | FileCheck %s --check-prefix=REDPTX

// IR: func.func @ubits(%arg0: memref<?xi8> {tile.dims = ["N"], tile.name = "X", tile.unsigned}, %arg1: memref<?xi32> {tile.dims = ["N"], tile.name = "Y", tile.unsigned}, %arg2: memref<?xf32> {tile.dims = ["N"], tile.name = "F"}
// IR-SAME: %arg7: i32 {tile.name = "s", tile.unsigned}
// IR: arith.extui {{.*}} : tensor<64xi8> to tensor<64xi32>
// IR: arith.divui {{.*}} : tensor<64xi8>
// IR: arith.shrui {{.*}} : tensor<64xi8>
// IR: arith.remui {{.*}} : tensor<64xi8>
// IR: arith.divui {{.*}} : tensor<64xi32>
// IR: arith.maxui
// IR: arith.shrui {{.*}} : tensor<64xi32>
// IR: arith.fptoui {{.*}} : tensor<64xf32> to tensor<64xi32>
// IR: arith.uitofp {{.*}} : tensor<64xi32> to tensor<64xf32>
// IR: arith.uitofp {{.*}} : tensor<64xi8> to tensor<64xf32>
// IR: arith.cmpi ugt, {{.*}} : tensor<64xi32>
// IR: arith.cmpi uge, {{.*}} : tensor<64xi8>

// PTX-DAG: div.u32
// PTX-DAG: max.u32
// PTX-DAG: shr.u32
// PTX-DAG: cvt.rn.f32.u32
// PTX-DAG: cvt.rzi.u32.f32

// CONTRACT: "dtype": "u8",
// CONTRACT-NEXT: "kind": "tensor",
// CONTRACT-NEXT: "name": "X",
// CONTRACT: "dtype": "u32",
// CONTRACT-NEXT: "kind": "tensor",
// CONTRACT-NEXT: "name": "Y",
// CONTRACT: "name": "R",
// CONTRACT: "dtype": "u32",
// CONTRACT-NEXT: "kind": "scalar",
// CONTRACT-NEXT: "name": "s"

// rowmax of u8: flip the top bit (xor -128), the signed max, flip back.
// RED: %[[F:.*]] = arith.xori %{{.*}}, %{{.*}} : tensor<4x32xi8>
// RED-NEXT: %[[M:.*]] = "tile.reduce"(%[[F]]) {axis = 1 : i64, kind = "max"}
// RED-NEXT: %[[E:.*]] = tensor.expand_shape %[[M]]
// RED: arith.xori %[[E]], %{{.*}} : tensor<4x1xi8>
// RED: arith.maxui {{.*}} : tensor<4x32xi8>
// RED: arith.minui {{.*}} : tensor<4x32xi8>

// REDPTX-DAG: xor.b16 {{.*}}, -128;
// REDPTX-DAG: xor.b32 {{.*}}, -2147483648;

// PROM: arith.addi {{.*}} : tensor<32xi8>
// PROM: arith.divui {{.*}} : tensor<32xi8>
// PROM: arith.addi {{.*}} : tensor<32xi32>
// PROM: arith.shrui {{.*}} : tensor<32xi32>
// PROM: arith.extui {{.*}} : tensor<32xi8> to tensor<32xi32>
// PROM: arith.fptoui {{.*}} : tensor<32xf32> to tensor<32xi32>
// PROM: arith.minui {{.*}} : tensor<32xi32>
// PROM: arith.trunci {{.*}} : tensor<32xi32> to tensor<32xi8>
