// fp8 (f8e4m3, f8e5m2): tile IR converts with arith.truncf/extf; the GPU converts pairs of elements
// with cvt.rn.satfinite.{e4m3,e5m2}x2.f32 (nearest even, saturating) and cvt.rn.f16x2.{e4m3,e5m2}x2
// (exact), the element of the lower address in the low byte; 16 one-byte elements move as one
// 16-byte access where the arguments allow; the contract names the dtypes; sm_80 and sm_89 below
// PTX ISA 8.1 are refused at the conversion; ptxas accepts the kernels on sm_90 and sm_89.
// REQUIRES: ptxas
// RUN: phobos compile %s --emit=tile | FileCheck %s --check-prefix=IR
// RUN: phobos compile %s --emit=gpu | FileCheck %s --check-prefix=GPU
// RUN: phobos compile %s --kernel encode --emit=ptx | FileCheck %s --check-prefix=ENC
// RUN: phobos compile %s --kernel decode --emit=ptx | FileCheck %s --check-prefix=DEC
// RUN: phobos compile %s --kernel encode --emit=ptx --args 'f32[4096] f8e4m3[4096] f8e5m2[4096]' | FileCheck %s --check-prefix=ENC16
// RUN: phobos compile %s --kernel decode --emit=ptx --args 'f8e4m3[4096] f8e5m2[4096] f32[4096] f16[4096] bf16[4096]' | FileCheck %s --check-prefix=DEC16
// RUN: phobos compile %s --kernel decode --emit=contract | FileCheck %s --check-prefix=CONTRACT
// RUN: not phobos compile %s --kernel encode --chip sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not phobos compile %s --kernel decode --chip sm_89 --emit=ptx 2>&1 | FileCheck %s --check-prefix=SM89
// RUN: phobos compile %s --kernel decode --chip sm_89 --features +ptx81 --emit=ptx | FileCheck %s --check-prefix=DEC
// RUN: phobos compile %s --kernel encode --emit=cubin -o %t.encode.cubin
// RUN: phobos compile %s --kernel decode --chip sm_89 --features +ptx81 --emit=cubin -o %t.decode.cubin

kernel encode(X: tensor<f32>[N], A: tensor<f8e4m3>[N], B: tensor<f8e5m2>[N]) {
  let s = ctx.block.x * 1024
  A[s :+ 1024] = X[s :+ 1024]
  B[s :+ 1024] = f8e5m2(X[s :+ 1024])
}

kernel decode(A: tensor<f8e4m3>[N], B: tensor<f8e5m2>[N], AF: tensor<f32>[N], BH: tensor<f16>[N], BG: tensor<bf16>[N]) {
  let s = ctx.block.x * 1024
  let b = B[s :+ 1024]
  AF[s :+ 1024] = f32(A[s :+ 1024])
  BH[s :+ 1024] = b
  BG[s :+ 1024] = b
}

// IR-LABEL: func.func @encode(%arg0: memref<?xf32> {{.*}}, %arg1: memref<?xf8E4M3FN> {{.*}}, %arg2: memref<?xf8E5M2>
// IR: arith.truncf %{{.*}} : tensor<1024xf32> to tensor<1024xf8E4M3FN>
// IR: arith.truncf %{{.*}} : tensor<1024xf32> to tensor<1024xf8E5M2>
// IR-LABEL: func.func @decode
// IR: arith.extf %{{.*}} : tensor<1024xf8E4M3FN> to tensor<1024xf32>
// IR: arith.extf %{{.*}} : tensor<1024xf8E5M2> to tensor<1024xf16>
// IR: arith.extf %{{.*}} : tensor<1024xf8E5M2> to tensor<1024xbf16>

// Pairs of a thread's elements: element 1 is cvt's first operand (the high byte), element 0 the
// second; from fp8, bytes 0 and 1 of the thread's codes become halves 0 and 1.
// GPU-LABEL: gpu.func @encode
// GPU: %[[A:[0-9]+]] = nvvm.convert.f32x2.to.f8x2 %[[X:[0-9]+]]#1, %[[X]]#0 {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
// GPU: %[[B:[0-9]+]] = nvvm.convert.f32x2.to.f8x2 %[[X]]#3, %[[X]]#2
// GPU: %[[C:[0-9]+]] = vector.from_elements %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : vector<4xi8>
// GPU: arith.bitcast %[[C]] : vector<4xi8> to vector<4xf8E4M3FN>
// GPU: nvvm.convert.f32x2.to.f8x2 {{.*}} : vector<2xi8>(f8E5M2)
// GPU-LABEL: gpu.func @decode
// GPU: %[[D:[0-9]+]] = arith.bitcast %{{[0-9]+}} : vector<4xf8E4M3FN> to vector<4xi8>
// GPU: %[[P:[0-9]+]] = vector.shuffle %[[D]], %[[D]] [0, 1] : vector<4xi8>, vector<4xi8>
// GPU: nvvm.convert.f8x2.to.f16x2 %[[P]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// GPU: %[[Q:[0-9]+]] = vector.shuffle %[[D]], %[[D]] [2, 3]
// GPU: nvvm.convert.f8x2.to.f16x2 %[[Q]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>

// The generic variant: one element per access, a pair per cvt (elements 256 apart); the first
// element goes to the low byte (the second cvt operand), the second is shifted down from the high one.
// ENC: ld.global.nc.b32 %r[[X0:[0-9]+]],
// ENC: ld.global.nc.b32 %r[[X1:[0-9]+]],
// ENC: cvt.rn.satfinite.e4m3x2.f32 %rs[[P:[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
// ENC: st.global.b8 [%rd{{[0-9]+}}], %rs[[P]];
// ENC: shr.{{[su]}}16 %rs[[H:[0-9]+]], %rs[[P]], 8;
// ENC: st.global.b8 [%rd{{[0-9]+}}+256], %rs[[H]];
// ENC: cvt.rn.satfinite.e5m2x2.f32
// ENC-NOT: cvt.rn.f16x2

// DEC: ld.global.nc.b8
// DEC: cvt.rn.f16x2.e4m3x2
// DEC: cvt.f32.f16
// DEC: cvt.rn.f16x2.e5m2x2
// DEC-NOT: cvt.rn.satfinite

// Contiguous, 16-byte aligned arguments: 16 elements a thread, so each fp8 tensor moves as one
// 16-byte access per thread (v4.b32), its f32 neighbour as four.
// ENC16-COUNT-4: ld.global.nc.v4.b32
// ENC16-COUNT-8: cvt.rn.satfinite.e4m3x2.f32
// ENC16: st.global.v4.b32
// ENC16-COUNT-4: ld.global.nc.v4.b32
// ENC16-COUNT-8: cvt.rn.satfinite.e5m2x2.f32
// ENC16: st.global.v4.b32
// ENC16-NOT: st.global.b8

// DEC16: ld.global.nc.v4.b32
// DEC16: ld.global.nc.v4.b32
// DEC16-NOT: ld.global.nc.b8
// DEC16: cvt.rn.f16x2.e4m3x2
// DEC16: st.global.v4.b32
// DEC16: cvt.rn.f16x2.e5m2x2
// DEC16: st.global.v4.b32
// DEC16: cvt.rn.bf16x2.f32

// CONTRACT: "dtype": "f8e4m3",
// CONTRACT-NEXT: "kind": "tensor",
// CONTRACT-NEXT: "name": "A",
// CONTRACT: "dtype": "f8e5m2",
// CONTRACT-NEXT: "kind": "tensor",
// CONTRACT-NEXT: "name": "B",

// SM80: fp8.ph:22:18: error: converting f32 to f8e4m3 needs cvt.rn.satfinite.e4m3x2.f32, which needs sm_89 or later; the target is sm_80
// SM80-NEXT: A[s :+ 1024] = X[s :+ 1024]
// SM80-NEXT: {{^ *}}^

// SM89: fp8.ph:29:19: error: converting f8e4m3 to f32 needs cvt.rn.f16x2.e4m3x2, which sm_89 has from PTX ISA 8.1: compile with the features +ptx81
