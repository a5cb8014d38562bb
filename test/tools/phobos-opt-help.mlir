// phobos-opt --help lists the Phobos passes with a one-line summary each.
// RUN: phobos-opt --help | FileCheck %s
// CHECK: USAGE: phobos-opt [options] [input file]
// CHECK: Phobos passes
// CHECK: tile-verify{{ +}}Checks the tile IR rules that IRDL cannot express.
// RUN: phobos-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: phobos-opt (Phobos {{[0-9.]+}}) on MLIR 22
