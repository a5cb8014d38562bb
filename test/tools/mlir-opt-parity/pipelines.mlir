// Pass pipelines, pass flags with options and their errors behave exactly as in mlir-opt.
// Flags taken from llvm/llvm-project mlir/test/Pass/pipeline-parsing.mlir (stored version
// 0c36a1569a066e2a5fcbaa2835c7b3ea49f60458), mlir/test/Pass/pipeline-options-parsing.mlir
// (024cb70e0faa06669c68f3aa7672d10b068862ff), mlir/test/Pass/pipeline-invalid.mlir
// (2e01630fee5a118ea04ccb6275b97c960a613ec2) and mlir/test/mlir-opt/commandline.mlir
// (30496e07f2ac7bb6ef8d74d4d3ce21a900ccb9ff), Apache-2.0 WITH LLVM-exception; checked against
// the mlir-opt of LLVM 22.1.8 (llvmorg-22.1.8). The test-* passes of those files are not in a
// release mlir-opt: upstream passes with the same kind of options stand in for them.
// REQUIRES: mlir-opt
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='builtin.module(cse' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='builtin.module(cse))' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='builtin.module()(' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline=',' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='func.func(convert-func-to-llvm)' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='' -cse | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='builtin.module(canonicalize{)' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='builtin.module(canonicalize{test-option=3})' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='builtin.module(canonicalize{max-iterations=notaninteger})' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -pass-pipeline='builtin.module(canonicalize{region-simplify=invalid})' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -verify-each=false -pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 region-simplify=aggressive disable-patterns=a,b},cse))' -dump-pass-pipeline | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --canonicalize=max-iterations=1 --cse -dump-pass-pipeline | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s '--inline=default-pipeline=canonicalize max-iterations=2' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --canonicalize=bogus=1 | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s -p 'builtin.module(func.func(cse))' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline 'builtin.module(canonicalize)' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --pass-pipeline='builtin.module(affine-loop-tile{tile-size=4})' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --mlir-pass-statistics --mlir-pass-statistics-display=list --canonicalize --cse | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --mlir-pass-statistics --pass-pipeline='builtin.module(func.func(cse,canonicalize))' | FileCheck %s
// Timing reports are masked: only their layout and the pass names are compared.
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py '--compare-mask=\( *[0-9.]+%\)|[0-9]+\.[0-9]+' %mlir-opt %s -mlir-disable-threading -mlir-timing -mlir-timing-display=tree -pass-pipeline='builtin.module(func.func(cse,canonicalize))' | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt %s --no-implicit-module --pass-pipeline='any(cse)' --verify-diagnostics --split-input-file | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py %mlir-opt --show-dialects | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-minus-phobos %mlir-opt --list-passes | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-minus-phobos --compare-sorted %mlir-opt --help | FileCheck %s
// RUN: %python %S/../Inputs/compare_with_mlir_opt.py --compare-minus-phobos --compare-sorted %mlir-opt --help-hidden | FileCheck %s
// CHECK: identical

func.func @foo(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = call @bar(%0) : (i32) -> i32
  return %1 : i32
}

func.func private @bar(%a: i32) -> i32 {
  %1 = arith.muli %a, %a : i32
  %2 = arith.muli %a, %a : i32
  %3 = arith.addi %1, %2 : i32
  return %3 : i32
}
