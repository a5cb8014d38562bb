// SASS of the decode GEMVs with 8-bit weights (bench/kernels/gemv_i8.ph, gemv_q8_0_rows.ph) on
// contiguous 16-byte aligned arguments: every weight byte becomes an f32 through the exponent
// bits (lowering/byte_to_float.py), never I2F, whose quarter rate bounded these kernels: one
// LOP3 flips the sign bits of four bytes at once (x ^ 0x80808080), each byte is placed under
// 2^23 and 2^23 + 128 subtracted (FADD). The weights come in 128-bit read-only loads.
// REQUIRES: ptxas, nvdisasm
// RUN: phobos compile %S/../../bench/kernels/gemv_i8.ph -D TT=1 -D BN=4 -D KV=1 -D W=128 --args 'f16[1,1,4096] i8[14336,4096] f32[14336] f16[1,14336]' --emit=cubin -o %t.i8.cubin
// RUN: %nvdisasm -c %t.i8.cubin 2>/dev/null | FileCheck %s
// RUN: phobos compile %S/../../bench/kernels/gemv_q8_0_rows.ph -D BR=4 -D KV=1 -D W=128 --args 'f16[1,128,32] i8[14336,128,32] f32[14336,128,1] f16[1,14336,1]' --emit=cubin -o %t.q8.cubin
// RUN: %nvdisasm -c %t.q8.cubin 2>/dev/null | FileCheck %s

// CHECK-NOT: I2F
// CHECK: LDG.E.128.CONSTANT
// CHECK-NOT: I2F
// CHECK: LOP3.LUT R{{[0-9]+}}, R{{[0-9]+}}, 0x80808080, RZ, 0x3c, !PT
// CHECK-NOT: I2F
// CHECK: FADD R{{[0-9]+}}, R{{[0-9]+}}, -8388736
// CHECK-NOT: I2F
// CHECK: EXIT
