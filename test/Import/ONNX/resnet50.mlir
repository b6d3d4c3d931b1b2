// RUN: hd-translate --import-onnx %models/resnet50.onnx --batch-size=32 | FileCheck %s
// RUN: hd-translate --import-onnx %models/resnet50.onnx --batch-size=32 -o %t.mlir
// RUN: grep "= hd.conv2d" %t.mlir | count 53
// RUN: grep "= hd.batchnorm" %t.mlir | count 53
// RUN: grep "= hd.relu" %t.mlir | count 49
// RUN: grep "= hd.add" %t.mlir | count 16
// RUN: grep "= hd.pool2d max" %t.mlir | count 1
// RUN: grep "= hd.pool2d avg %.* {global" %t.mlir | count 1
// RUN: grep "= hd.linear" %t.mlir | count 1
// RUN: hd-opt %t.mlir --hd-layer-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// CHECK: func.func @resnet50(%arg0: tensor<32x3x224x224xf32> loc("input"), %arg1: tensor<32xi32> loc("labels")) -> tensor<f32>
// CHECK: hd.conv2d %arg0 {bias = false, {{.*}}kernel = array<i64: 7, 7>, out_channels = 64 : i64, padding = array<i64: 3, 3, 3, 3>, stride = array<i64: 2, 2>} : tensor<32x3x224x224xf32> -> tensor<32x64x112x112xf32>
// CHECK: hd.batchnorm {{.*}} {epsilon = 1.000000e-05 : f64, hd.tensors = {{{.*}}}, momentum = 9.000000e-01 : f64} : tensor<32x64x112x112xf32>
// CHECK: hd.pool2d max {{.*}}padding = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<32x64x56x56xf32>
// CHECK: hd.add {{.*}} : tensor<32x256x56x56xf32> loc([[ADD:#loc[0-9]+]])
// CHECK: hd.add {{.*}} : tensor<32x2048x7x7xf32>
// CHECK: hd.pool2d avg {{.*}} {global, kernel = array<i64: 7, 7>{{.*}} -> tensor<32x2048x1x1xf32>
// CHECK: hd.linear {{.*}} : tensor<32x2048xf32> -> tensor<32x1000xf32>
// CHECK: [[ADD]] = loc("/layer1/layer1.0/Add")

// SUMMARY: total: 176 layers, 25557032 parameters
