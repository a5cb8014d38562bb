// Split input: each chunk is parsed, verified and printed on its own; the
// outputs are joined with the marker, and errors keep the file's line numbers.
// RUN: not phobos-opt %s --split-input-file --pass-pipeline='builtin.module(tile-verify)' > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: phobos-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-verify)' | FileCheck %s --check-prefix=OUT
// The verifier fails when an expectation is wrong.
// RUN: sed -e 's/multiple of 32 between/NOT THE MESSAGE/' %s > %t.wrong.mlir
// RUN: not phobos-opt %t.wrong.mlir --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(tile-verify)' 2>&1 | FileCheck %s --check-prefix=WRONG

// OUT: func.func @first
// OUT-NEXT: return
// OUT: // -----
// OUT-NEXT: // -----
// OUT-NEXT: module {
// OUT-NEXT: func.func @third
// OUT-NOT: // -----

// ERR: phobos-opt-split.mlir:32:1: error: 'func.func' op expects tile.launch threads to be a multiple of 32 between 32 and 1024, got 48
// ERR-NEXT: func.func @second() attributes {tile.kernel, tile.launch = {threads = 48 : i64}} {
// ERR-NEXT: ^
// WRONG: error: unexpected error: 'func.func' op expects tile.launch threads to be a multiple of 32 between 32 and 1024, got 48
// WRONG: error: expected error "'func.func' op expects tile.launch threads to be a NOT THE MESSAGE 32 and 1024" was not produced

func.func @first() {
  return
}

// -----

// expected-error @below {{'func.func' op expects tile.launch threads to be a multiple of 32 between 32 and 1024}}
func.func @second() attributes {tile.kernel, tile.launch = {threads = 48 : i64}} {
  return
}

// -----

func.func @third() {
  return
}
