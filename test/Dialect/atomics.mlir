// tile.atomic_rmw and tile.atomic_cas: a valid pair round-trips through
// tile-verify; each rule of dialect/verify.py that a user can break is an error.
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @ok
// CHECK: "tile.atomic_rmw"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {kind = "add", scope = "gpu", sem = "relaxed"}
// CHECK: "tile.atomic_cas"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {scope = "sys", sem = "acq_rel"}
func.func @ok(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xindex>, %m: tensor<64xi1>, %v: tensor<64xf32>) {
  %0 = "tile.atomic_rmw"(%v, %B, %o, %m) {kind = "add", sem = "relaxed", scope = "gpu"} : (tensor<64xf32>, memref<?xf32>, tensor<64xindex>, tensor<64xi1>) -> tensor<64xf32>
  %1 = "tile.atomic_cas"(%v, %0, %B, %o) {sem = "acq_rel", scope = "sys"} : (tensor<64xf32>, tensor<64xf32>, memref<?xf32>, tensor<64xindex>) -> tensor<64xf32>
  return
}

// -----

func.func @kind(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xindex>, %v: tensor<64xf32>) {
  // expected-error @below {{'tile.atomic_rmw' op expects kind to be one of 'add', 'max', 'min', 'xchg', got 'mul'}}
  %0 = "tile.atomic_rmw"(%v, %B, %o) {kind = "mul", sem = "relaxed", scope = "gpu"} : (tensor<64xf32>, memref<?xf32>, tensor<64xindex>) -> tensor<64xf32>
  return
}

// -----

func.func @sem(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xindex>, %v: tensor<64xf32>) {
  // expected-error @below {{'tile.atomic_rmw' op expects sem to be one of 'relaxed', 'acquire', 'release', 'acq_rel', got 'seq_cst'}}
  %0 = "tile.atomic_rmw"(%v, %B, %o) {kind = "add", sem = "seq_cst", scope = "gpu"} : (tensor<64xf32>, memref<?xf32>, tensor<64xindex>) -> tensor<64xf32>
  return
}

// -----

func.func @elem(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xindex>, %v: tensor<64xf16>) {
  // expected-error @below {{'tile.atomic_rmw' op expects the value element type f16 to equal the base's f32}}
  %0 = "tile.atomic_rmw"(%v, %B, %o) {kind = "add", sem = "relaxed", scope = "cta"} : (tensor<64xf16>, memref<?xf32>, tensor<64xindex>) -> tensor<64xf16>
  return
}

// -----

func.func @compare(%B: memref<?xf32> {tile.dims = ["N"]}, %o: tensor<64xindex>, %v: tensor<64xf32>, %c: tensor<32xf32>) {
  // expected-error @below {{'tile.atomic_cas' op expects the compare type tensor<32xf32> to equal the value type tensor<64xf32>}}
  %0 = "tile.atomic_cas"(%c, %v, %B, %o) {sem = "relaxed", scope = "gpu"} : (tensor<32xf32>, tensor<64xf32>, memref<?xf32>, tensor<64xindex>) -> tensor<64xf32>
  return
}
