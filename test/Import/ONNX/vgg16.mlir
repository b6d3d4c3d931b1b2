// RUN: hd-translate --import-onnx %models/vgg16.onnx --batch-size=32 | FileCheck %s
// RUN: hd-translate --import-onnx %models/vgg16.onnx --batch-size=32 -o %t.mlir
// RUN: grep "= hd.conv2d" %t.mlir | count 13
// RUN: grep "= hd.relu" %t.mlir | count 15
// RUN: grep "= hd.pool2d max" %t.mlir | count 5
// RUN: grep "= hd.pool2d avg" %t.mlir | count 1
// RUN: grep "= hd.linear" %t.mlir | count 3
// RUN: grep "= hd.dropout" %t.mlir | count 2
// RUN: hd-opt %t.mlir --hd-layer-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// CHECK: func.func @vgg16(%arg0: tensor<32x3x224x224xf32> loc("input"), %arg1: tensor<32xi32> loc("labels")) -> tensor<f32>
// CHECK: hd.conv2d %arg0 {{.*}}kernel = array<i64: 3, 3>, out_channels = 64 : i64, padding = array<i64: 1, 1, 1, 1>{{.*}} -> tensor<32x64x224x224xf32>
// CHECK: hd.pool2d max {{.*}}kernel = array<i64: 2, 2>{{.*}} -> tensor<32x64x112x112xf32>
// CHECK: hd.conv2d {{.*}} : tensor<32x512x14x14xf32> -> tensor<32x512x14x14xf32> loc([[CONV14:#loc[0-9]+]])
// CHECK: hd.flatten {{.*}} -> tensor<32x25088xf32>
// CHECK: hd.linear {{.*}} -> tensor<32x4096xf32>
// CHECK: hd.softmax_cross_entropy
// CHECK: [[CONV14]] = loc("/features/features.24/Conv")

// SUMMARY: total: 41 layers, 138357544 parameters
