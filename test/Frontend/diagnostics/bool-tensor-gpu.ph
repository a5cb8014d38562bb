// A tensor of bool has 1-bit elements in the IR, which no GPU load or store lowers: the access
// is a located error (MLIR's memref lowering aborted the process: "MLIR aborted", no location).
// The interpreter reads and writes bool tensors.
// RUN: not phobos compile %s --emit=ptx 2>&1 | FileCheck %s
// CHECK: bool-tensor-gpu.ph:[[@LINE+4]]:23: error: 'W' is a tensor of bool, which the GPU cannot read or write yet: pass it as a tensor<u8> (torch: x.view(torch.uint8)), read it with 'W[...] != 0' and store u8(b)
// CHECK-NOT: error:
// CHECK-NOT: aborted
kernel k(W: tensor<bool>[N], X: tensor<f32>[N]) {
  X[0 :+ 256] = where(W[0 :+ 256], 1.0, 0.0)
  W[0] = true
}
