// phobos-opt --help is mlir-opt's help with the Phobos passes (and their options) in the
// pass list and the tile-to-* aliases among the pass pipelines, in mlir-opt's format.
// RUN: phobos-opt --help | FileCheck %s
// CHECK: USAGE: phobos-opt [options] <input file>
// CHECK: Passes:
// CHECK: {{^      --canonicalize +-   Canonicalize operations$}}
// CHECK: {{^      --tile-elide-masks +-   Marks what}}
// CHECK-NEXT: {{^        --remarks +- print a remark}}
// CHECK: {{^      --tile-verify +-   Checks the tile IR rules that IRDL cannot express.$}}
// CHECK-NEXT: {{^      --tile-verify-barriers +-   Checks the barriers tile-insert-barriers recorded with a hazard analysis of its own.$}}
// CHECK-NEXT: {{^      --tile-version-masks +-   Skips a select on a bounds mask in a loop where every position passes: one scalar test.$}}
// CHECK-NEXT: {{^      --topological-sort }}
// CHECK: Pass Pipelines:
// CHECK: {{^      --tile-to-gpu +-   Pipeline alias: tile IR through the stages tile -> gpu.$}}
// CHECK-NEXT: {{^        --key=<string> +- a specialisation key}}
// CHECK-NEXT: {{^        --chip=<string> +- the GPU to compile for .*\(default: sm_90\)$}}
// The Phobos entries use the column of mlir-opt's own descriptions.
// RUN: phobos-opt --help | grep -E '^      --(canonicalize|tile-verify|tile-to-gpu) ' | awk '{ print index($0, " -   ") }' | uniq | wc -l | FileCheck %s --check-prefix=ONECOLUMN
// ONECOLUMN: {{^ *1$}}
// RUN: phobos-opt --list-passes | FileCheck %s --check-prefix=LIST
// LIST: {{^  --tile-specialize +-   Applies a launch-time}}
// LIST-NEXT: {{^    --key=<string> +- the specialisation key}}
// LIST: {{^  --tile-to-cubin +-   Pipeline alias}}
// Phobos pass flags next to --help change nothing.
// RUN: phobos-opt --tile-verify --help | FileCheck %s
// RUN: phobos-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: LLVM version 22.1.8
// VERSION: Phobos version {{[0-9.]+}} (the tile dialect and the tile-* passes)
