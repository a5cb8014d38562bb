// RUN: not phobos check %s 2>&1 | FileCheck %s
// CHECK-NOT: error:
// CHECK: conversion-infinite.ph:8:15: error: float literal 1e999 is too large (the largest finite float is 1.79769e+308)
// CHECK-NEXT: let a = i32(1e999)
// CHECK-NEXT: {{^ *}}^~~~~{{$}}
// CHECK-NOT: error:
kernel k(A: tensor<f32>[M, N], B: tensor<f32>[M, N], n: i32, x: f32) {
  let a = i32(1e999)
}
