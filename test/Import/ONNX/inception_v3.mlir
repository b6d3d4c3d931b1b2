// RUN: hd-translate --import-onnx %models/inception_v3.onnx --batch-size=32 | FileCheck %s
// RUN: hd-translate --import-onnx %models/inception_v3.onnx --batch-size=32 -o %t.mlir
// RUN: grep "= hd.conv2d" %t.mlir | count 94
// RUN: grep "= hd.batchnorm" %t.mlir | count 94
// RUN: grep "= hd.relu" %t.mlir | count 94
// RUN: grep "= hd.concat" %t.mlir | count 11
// RUN: grep "= hd.pool2d max" %t.mlir | count 4
// RUN: grep "= hd.pool2d avg" %t.mlir | count 10
// The 9 zero Pads fold into the average pools that consume them.
// RUN: grep "= hd.pool2d avg %.* {count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>" %t.mlir | count 9
// RUN: hd-opt %t.mlir --hd-layer-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// CHECK: func.func @inception_v3(%arg0: tensor<32x3x299x299xf32> loc("input"), %arg1: tensor<32xi32> loc("labels")) -> tensor<f32>
// CHECK: hd.conv2d %arg0 {{.*}}stride = array<i64: 2, 2>} : tensor<32x3x299x299xf32> -> tensor<32x32x149x149xf32>
// CHECK: hd.batchnorm {{.*}} {epsilon = 1.000000e-03 : f64, hd.tensors = {running_mean = "Conv2d_1a_3x3.bn.running_mean", running_var = "Conv2d_1a_3x3.bn.running_var", scale = "Conv2d_1a_3x3.bn.weight", shift = "Conv2d_1a_3x3.bn.bias"}, momentum = 9.000000e-01 : f64} : tensor<32x32x149x149xf32>
// CHECK: hd.concat {{.*}} -> tensor<32x256x35x35xf32> loc([[MIX5B:#loc[0-9]+]])
// CHECK: hd.concat {{.*}} -> tensor<32x768x17x17xf32>
// CHECK: hd.concat {{.*}} -> tensor<32x2048x8x8xf32>
// CHECK: hd.pool2d avg {{.*}} {global, kernel = array<i64: 8, 8>{{.*}} -> tensor<32x2048x1x1xf32>
// CHECK: hd.dropout {{.*}} : tensor<32x2048x1x1xf32>
// CHECK: hd.linear {{.*}} : tensor<32x2048xf32> -> tensor<32x1000xf32>
// CHECK: [[MIX5B]] = loc("/Mixed_5b/Concat")

// torchvision's 27161264 less the auxiliary classifier's 3326696.
// SUMMARY: total: 311 layers, 23834568 parameters
