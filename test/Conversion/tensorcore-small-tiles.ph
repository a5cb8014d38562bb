// @tensorcore GEMMs in 32 x 32 x 16 tiles on 256 threads (one m16 x n8 accumulator
// tile per warp, four registers per thread), as the original Phobos's gemm_fp16 and
// gemm_fp16tc_fp32acc have them, compile on sm_80, sm_90 and sm_90a to mma.sync (the
// thread's one C fragment used to be folded into a vector.shape_cast that LLVM
// translation refused: "LLVM Translation failed for operation:
// builtin.unrealized_conversion_cast").
// RUN: phobos compile %S/../../bench/kernels/tc_small_f16.ph --chip=sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=F16 --implicit-check-not=error
// RUN: phobos compile %S/../../bench/kernels/tc_small_f16.ph --chip=sm_90 --emit=ptx 2>&1 | FileCheck %s --check-prefix=F16 --implicit-check-not=error
// RUN: phobos compile %S/../../bench/kernels/tc_small_f16.ph --chip=sm_90a --emit=ptx 2>&1 | FileCheck %s --check-prefix=F16 --implicit-check-not=error
// RUN: phobos compile %S/../../bench/kernels/tc_small_tf32.ph --chip=sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=TF32 --implicit-check-not=error
// RUN: phobos compile %S/../../bench/kernels/tc_small_tf32.ph --chip=sm_90a --emit=ptx 2>&1 | FileCheck %s --check-prefix=TF32 --implicit-check-not=error
// RUN: phobos compile %s --chip=sm_80 --emit=ptx 2>&1 | FileCheck %s --check-prefix=BF16 --implicit-check-not=error
// RUN: phobos compile %s --chip=sm_90a --emit=ptx 2>&1 | FileCheck %s --check-prefix=BF16 --implicit-check-not=error

// F16: ldmatrix.sync.aligned
// F16: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
// F16-NOT: warning

// TF32: cvt.rna.tf32.f32
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
@launch(256, 2)
@pipeline
@tensorcore
kernel small_bf16(A: tensor<bf16>[M, K], B: tensor<bf16>[K, N], C: tensor<f32>[M, N]) {
  let pm = program_id(0)
  let pn = program_id(1)
  var acc: tile<f32>[32, 32] = 0.0
  for kt in range(0, K, 16) {
    acc += dot(A[pm * 32 :+ 32, kt :+ 16], B[kt :+ 16, pn * 32 :+ 32])
  }
  C[pm * 32 :+ 32, pn * 32 :+ 32] = acc
}
