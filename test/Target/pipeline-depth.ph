// @pipeline(S): the rings of a @pipeline loop get S stages (3 without an argument), an
// @autotune constant like any other. mma.sync (sm_80): cp.async groups with S - 1 in flight,
// so the wait before each step leaves S - 2 pending (wait_group 2 at S = 4, 0 at S = 2); the
// ring holds S copies of both operand tiles. wgmma (sm_90a): S TMA stages, and still one
// wgmma group in flight across iterations at S = 2 (the stage the previous group read is
// refilled only after its wait).
// RUN: phobos compile %s -D S=4 --chip sm_80 --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' --emit=ptx | FileCheck %s --check-prefix=MMA4
// RUN: phobos compile %s -D S=2 --chip sm_80 --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' --emit=ptx | FileCheck %s --check-prefix=MMA2
// RUN: phobos compile %s -D S=3 --chip sm_80 --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' --emit=ptx | FileCheck %s --check-prefix=MMA3
// RUN: phobos compile %s -D S=4 --chip sm_90a --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' --emit=contract | FileCheck %s --check-prefix=TMA4
// RUN: phobos compile %s -D S=2 --chip sm_90a --key='A=a16.e16x16.s16;B=a16.e16x16.s16;C=a16.e16x16.s16' --emit=contract | FileCheck %s --check-prefix=TMA2

// MMA4: mma.sync.aligned.m16n8k16
// MMA4: cp.async.wait_group 2;
// MMA4-NOT: cp.async.wait_group 1;
// MMA4: cp.async.wait_group 0;
// MMA3: cp.async.wait_group 1;
// MMA2-NOT: cp.async.wait_group {{[1-9]}};

// TMA4: "buffers": [
// TMA4: "stages": 4,
// TMA4: "stages": 4,
// TMA4: "pipeline": [
// TMA4: "stages": 4,
// TMA4-NEXT: "wgmma groups in flight": 1
// TMA4: "instruction": "wgmma"
// TMA2: "pipeline": [
// TMA2: "stages": 2,
// TMA2-NEXT: "wgmma groups in flight": 1

@autotune(S in [3, 4, 2])
@launch(128)
@tensorcore
@pipeline(S)
kernel gemm_stages(A: tensor<f16>[M, K], B: tensor<f16>[N, K], C: tensor<f32>[M, N]) {
  let m0 = ctx.block.x * 64
  let n0 = ctx.block.y * 128
  var acc: tile<f32>[64, 128] = 0.0
  for k in range(0, K, 64) {
    acc += dot_t(A[m0 :+ 64, k :+ 64], B[n0 :+ 128, k :+ 64])
  }
  C[m0 :+ 64, n0 :+ 128] = acc
}
