// grid_barrier() of a @persistent kernel (lowering/ops/grid_sync.py): a module global
// {arrived, generation}, zero at load (a .global without initializer), and one
// __phobos_grid_sync function every barrier calls: bar.sync, then thread 0 releases the
// CTA's writes (fence.acq_rel.gpu), reads the generation with acquire, adds itself to the
// count; the last CTA resets the count and, after a fence, bumps the generation; the others
// spin on an acquire load of it; a fence and bar.sync end it.
// RUN: phobos compile %s --emit=ptx | FileCheck %s --implicit-check-not=Traceback

// CHECK: .global .align 8 .b8 __phobos_grid_barrier[8];
// CHECK-LABEL: .func __phobos_grid_sync()
// CHECK: bar.sync 0;
// CHECK: mov.u32 %r{{[0-9]+}}, %tid.x;
// CHECK: %nctaid.x
// CHECK: fence.acq_rel.gpu;
// CHECK-NEXT: ld.acquire.gpu.global.b32 [[GEN:%r[0-9]+]], [__phobos_grid_barrier+4];
// CHECK-NEXT: atom.global.add.u32 %r{{[0-9]+}}, [__phobos_grid_barrier], 1;
// CHECK: st.relaxed.gpu.global.b32 [__phobos_grid_barrier], 0;
// CHECK-NEXT: fence.acq_rel.gpu;
// CHECK-NEXT: atom.global.add.u32 %r{{[0-9]+}}, [__phobos_grid_barrier+4], 1;
// CHECK: [[SPIN:\$L__BB0_[0-9]+]]:
// CHECK-NEXT: ld.acquire.gpu.global.b32 [[NOW:%r[0-9]+]], [__phobos_grid_barrier+4];
// CHECK-NEXT: setp.eq.b32 [[SAME:%p[0-9]+]], [[NOW]], [[GEN]];
// CHECK-NEXT: @[[SAME]] bra [[SPIN]];
// CHECK: fence.acq_rel.gpu;
// CHECK: bar.sync 0;
// CHECK-NEXT: ret;

// CHECK-LABEL: .entry two_phase(
// CHECK: st.global.b32
// CHECK: call.uni __phobos_grid_sync, ();
// CHECK: call.uni __phobos_grid_sync, ();
// CHECK: ld.global
@persistent
kernel two_phase(X: tensor<f32>[N], P: tensor<f32>[G]) {
  let b = ctx.block.x
  P[b] = X[b] * 2.0
  grid_barrier()
  grid_barrier()
  X[b] = P[(b + 1) % ctx.grid.x]
}
