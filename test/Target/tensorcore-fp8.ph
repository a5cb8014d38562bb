// fp8 dots under @tensorcore run mma.sync m16n8k32 .f32.e4m3.e4m3.f32 (inline PTX: MLIR 22's
// nvvm.mma.sync refuses e4m3 at k32), both operands by ldmatrix when B is [n][k]. ptxas takes the
// instruction from sm_89 and PTX ISA 8.4 only: without +ptx84, and on sm_80, the dot is a located
// error (fp8 dots have no CUDA-core path).
// REQUIRES: ptxas
// RUN: phobos compile %s --features +ptx84 --emit=ptx | FileCheck %s
// RUN: phobos compile %s --chip sm_89 --features +ptx84 --emit=cubin -o %t.cubin
// RUN: not phobos compile %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=PTX80
// RUN: not phobos compile %s --chip sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK: .version 8.4
// CHECK-LABEL: .entry tc_fp8
// CHECK-NOT: ld.shared.b8
// CHECK-COUNT-2: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// CHECK-NOT: ld.shared.b8
// PTX80: tensorcore-fp8.ph:[[@LINE+10]]:12: error: fp8 mma.sync needs PTX ISA 8.4: compile with the features +ptx84
// SM80: tensorcore-fp8.ph:[[@LINE+9]]:12: error: a dot of f8e4m3 operands runs only on the tensor cores: {{.*}}needs sm_89 or later; the target is sm_80
@launch(128)
@tensorcore
@pipeline
kernel tc_fp8(A: tensor<f8e4m3>[M, K], B: tensor<f8e4m3>[N, K], C: tensor<f32>[M, N]) {
  let pm = ctx.block.x
  let pn = ctx.block.y
  var acc: tile<f32>[64, 64] = 0.0
  for k in range(0, K, 64) {
    acc += dot_t(A[pm * 64 :+ 64, k :+ 64], B[pn * 64 :+ 64, k :+ 64])
  }
  C[pm * 64 :+ 64, pn * 64 :+ 64] = acc
}
