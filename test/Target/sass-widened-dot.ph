// The 8-bit weights of an f16 dot widened in registers (lowering/widened_fragments.py), in the PTX
// and the SASS of bench/kernels/gemv_tc_i8.ph (i8 W, the T = 16 decode GEMV) on contiguous, 16-byte aligned
// arguments for sm_90a. W reaches shared memory as bytes (16-byte cp.async, LDGSTS.128, never a
// global byte load); each fragment pair is one 2-byte shared read (LDS.U16), put under f16's 2^10
// by one PRMT (selector immediate, the other operand zero) and one LOP3 (the exponent's 0x64 and
// the sign flip, x ^ 0x6480_6480), and 1024 + 128 is taken off (HADD2); no I2F of a byte or cvt; the dot is
// HMMA on f16 (not wgmma: its [16, 64] tile is below m64). widened_u8_rhs.ph (u8): no sign flip.
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %S/../../bench/kernels/gemv_tc_i8.ph --chip sm_90a --args 'f16[16,4096] i8[14336,4096] f32[14336] f16[16,14336]' --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: phobos compile %S/../../bench/kernels/gemv_tc_i8.ph --chip sm_90a --args 'f16[16,4096] i8[14336,4096] f32[14336] f16[16,14336]' --emit=cubin -o %t.cubin
// RUN: %nvdisasm -c %t.cubin 2>/dev/null | FileCheck %s --check-prefix=SASS
// RUN: phobos compile %S/../../bench/kernels/widened_u8_rhs.ph --chip sm_90a --args 'f16[256,512] u8[256,512] f32[256,256]' --emit=ptx | FileCheck %s --check-prefix=U8

// PTX-NOT: ld.global.nc.b8
// PTX-NOT: cvt.rn.f16.s
// PTX: cp.async.cg.shared.global [{{[^]]+}}], [{{[^]]+}}], 16
// PTX: ld.shared.b16 [[PAIR:%r[0-9]+]], [{{[^]]+}}];
// PTX-NEXT: prmt.b32 [[SPREAD:%r[0-9]+]], [[PAIR]], 0, 0x4140U;
// PTX-NEXT: xor.b32 [[FLIPPED:%r[0-9]+]], [[SPREAD]], 1686135936;
// PTX: add.rn.f16x2 %r{{[0-9]+}}, [[FLIPPED]], %r{{[0-9]+}};
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-NOT: wgmma
// PTX-NOT: cvt.rn.f16.s

// SASS-NOT: {{I2F(\.F16)?\.[SU](8|16) }}
// SASS: LDGSTS.E.BYPASS.128
// SASS-NOT: {{I2F(\.F16)?\.[SU](8|16) }}
// SASS: LDS.U16
// SASS-NOT: {{I2F(\.F16)?\.[SU](8|16) }}
// SASS: PRMT R{{[0-9]+}}, R{{[0-9]+}}, 0x4140, RZ
// SASS-NOT: {{I2F(\.F16)?\.[SU](8|16) }}
// SASS: LOP3.LUT R{{[0-9]+}}, R{{[0-9]+}}, 0x64806480, RZ, 0x3c, !PT
// SASS-NOT: {{I2F(\.F16)?\.[SU](8|16) }}
// SASS: HADD2
// SASS-NOT: {{I2F(\.F16)?\.[SU](8|16) }}
// SASS: HMMA.16816.F32
// SASS-NOT: {{I2F(\.F16)?\.[SU](8|16) }}
// SASS: EXIT

// U8-NOT: 1686135936
// U8: ld.shared.b16 [[UPAIR:%r[0-9]+]], [{{[^]]+}}];
// U8-NEXT: prmt.b32 [[USPREAD:%r[0-9]+]], [[UPAIR]], 0, 0x4140U;
// U8-NEXT: {{xor|or}}.b32 [[UPLACED:%r[0-9]+]], [[USPREAD]], 1677747200;
// U8: add.rn.f16x2 %r{{[0-9]+}}, [[UPLACED]], %r{{[0-9]+}};
// U8-NOT: 1686135936
