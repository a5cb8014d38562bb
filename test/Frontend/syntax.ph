// Statement syntax: a newline or ';' ends a statement (none is needed before
// '}'), parameter lists and subscripts may span lines, a block's '{' may start
// the next line, `else` follows '}' on the same line, comments run to the end
// of the line, and keywords are only the reserved ones (`tile`, `range`, ...
// are ordinary names).
// RUN: phobos compile %s | phobos-opt --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s

// CHECK-LABEL: func.func @syntax(
kernel syntax(A: tensor<f32>[M,    // a comment inside the parameter list
                             N],
              n: i32)
{
  let a = 1; let b = 2; var c = a + b  // three statements on one line
  // CHECK: "tile.load_slice"({{.*}} -> tensor<4x8xf32>
  let t = A[0 :+ 4,
            0 :+ 8]
  let tile = 3 ; let range = 4
  // CHECK: scf.if
  // CHECK: } else {
  // CHECK: scf.if
  if n > 0 { c = c + tile } else if n < 0 { c = c - range } else
  {
    c = 0
  }
  for i in range(0, n)
  {
    c += 1 }
  // CHECK: scf.while
  while c > 100 { c = c / 2 }
  // CHECK: "tile.store_slice"
  A[0 :+ 4, 0 :+ 8] = t * 2.0 }
