// `while` (with the flags of break/continue/return) and single elements in the gpu stage
// (lowering/ops/loops.py): scf.while carries the thread's registers (a tile as its vector),
// its condition is a scalar; a single-element read is a one-element load, masked (zero outside
// the tensor), whose register is the scalar. The interpreter runs the same kernel.
// RUN: phobos compile %s --emit=gpu | FileCheck %s --implicit-check-not=Traceback
// RUN: phobos run %s --interpret --args 'f32[300] f32[300] 7' | FileCheck %s --check-prefix=INTERP

// CHECK-LABEL: gpu.func @w(
// CHECK: scf.while (%{{.*}}) : (index, i1, vector<2xf32>) -> (index, i1, vector<2xf32>) {
// CHECK: scf.condition(%{{.*}}) %{{.*}} : index, i1, vector<2xf32>
// CHECK: } do {
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[N:.*]] : index
// CHECK: %[[AT:.*]] = arith.select %[[IN]], %{{.*}}, %c0 : index
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[AT]]] : memref<?xf32>
// CHECK: %[[X:.*]] = arith.select %[[IN]], %[[V]], %cst{{.*}} : f32
// CHECK: scf.yield %[[X]] : f32
// CHECK: arith.cmpf ogt
// CHECK: scf.yield %{{.*}} : index, i1, vector<2xf32>
// INTERP: ran w in the interpreter
kernel w(X: tensor<f32>[N], Y: tensor<f32>[N], n: i32) {
  let s = ctx.block.x * 512
  var acc: tile<f32>[512] = 0.0
  for i in range(0, n) {
    if X[i] > 100.0 {
      break
    }
    acc += X[s :+ 512]
  }
  Y[s :+ 512] = acc
}
