// An expected-error-re whose regex does not compile is a located error at the
// comment, in mlir-opt's words, never a traceback. Upstream mlir-opt prints the
// same for the regexes both engines reject; blocks that are valid alone but
// clash once joined are a Python-only case.
// RUN: not phobos-opt %s --split-input-file --verify-diagnostics --tile-verify 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,PHOBOS
// RUN: %if mlir-opt %{ not %mlir-opt %s --split-input-file --verify-diagnostics 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,UPSTREAM %}

// CHECK: verify-diagnostics-bad-regex.mlir:[[@LINE+2]]:6: error: invalid regex: brackets ([ ]) not balanced
func.func @bracket() {
  // expected-error-re @+1 {{x{{[}}y}}
  return
}

// -----

// CHECK: verify-diagnostics-bad-regex.mlir:[[@LINE+2]]:6: error: invalid regex: parentheses not balanced
func.func @parenthesis() {
  // expected-error-re @+1 {{{{(}}}}
  return
}

// -----

// CHECK: verify-diagnostics-bad-regex.mlir:[[@LINE+2]]:6: error: invalid regex: repetition-operator operand invalid
func.func @repeat() {
  // expected-error-re @+1 {{{{a**}}}}
  return
}

// -----

// CHECK: verify-diagnostics-bad-regex.mlir:[[@LINE+2]]:6: error: invalid regex: trailing backslash (\)
func.func @backslash() {
  // expected-error-re @+1 {{{{x\}}}}
  return
}

// -----

// PHOBOS: verify-diagnostics-bad-regex.mlir:[[@LINE+3]]:6: error: invalid regex: redefinition of group name 'n'
// UPSTREAM: verify-diagnostics-bad-regex.mlir:[[@LINE+2]]:6: error: invalid regex: repetition-operator operand invalid
func.func @joined() {
  // expected-error-re @+1 {{{{(?P<n>a)}} and {{(?P<n>b)}}}}
  return
}

// CHECK-NOT: Traceback
// CHECK-NOT: internal error
