// RUN: hd-translate --import-onnx %models/alexnet.onnx --batch-size=32 | FileCheck %s
// RUN: hd-translate --import-onnx %models/alexnet.onnx --batch-size=32 -o %t.mlir
// RUN: grep "= hd.conv2d" %t.mlir | count 5
// RUN: grep "= hd.relu" %t.mlir | count 7
// RUN: grep "= hd.pool2d max" %t.mlir | count 3
// RUN: grep "= hd.pool2d avg" %t.mlir | count 1
// RUN: grep "= hd.linear" %t.mlir | count 3
// RUN: grep "= hd.dropout" %t.mlir | count 2
// RUN: grep "= hd.flatten" %t.mlir | count 1
// RUN: grep "= hd.softmax_cross_entropy" %t.mlir | count 1
// RUN: hd-opt %t.mlir --hd-layer-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// The module keeps its source model (without parameter data), and every
// layer with parameters the names of its tensors there.
// CHECK: module attributes {hd.model = "alexnet", hd.source = dense_resource<hd_source> : tensor<5051xi8>}
// CHECK: func.func @alexnet(%arg0: tensor<32x3x224x224xf32> loc("input"), %arg1: tensor<32xi32> loc("labels")) -> tensor<f32>
// CHECK: hd.conv2d %arg0 {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, hd.tensors = {bias = "features.0.bias", weight = "features.0.weight"}, kernel = array<i64: 11, 11>, out_channels = 64 : i64, padding = array<i64: 2, 2, 2, 2>, stride = array<i64: 4, 4>} : tensor<32x3x224x224xf32> -> tensor<32x64x55x55xf32> loc([[CONV0:#loc[0-9]+]])
// CHECK: hd.pool2d max {{.*}} -> tensor<32x64x27x27xf32>
// CHECK: hd.pool2d max {{.*}} -> tensor<32x256x6x6xf32>
// CHECK: hd.flatten {{.*}} -> tensor<32x9216xf32>
// CHECK: hd.dropout {{.*}} {ratio = 5.000000e-01 : f64} : tensor<32x9216xf32>
// CHECK: hd.linear {{.*}} {bias = true, hd.tensors = {bias = "classifier.1.bias", weight = "classifier.1.weight"}, out_features = 4096 : i64} : tensor<32x9216xf32> -> tensor<32x4096xf32>
// CHECK: hd.linear {{.*}} -> tensor<32x1000xf32> loc([[FC:#loc[0-9]+]])
// CHECK: hd.softmax_cross_entropy {{.*}} : tensor<32x1000xf32>, tensor<32xi32> -> tensor<f32> loc([[LOSS:#loc[0-9]+]])
// CHECK-DAG: [[CONV0]] = loc("/features/features.0/Conv")
// CHECK-DAG: [[FC]] = loc("/classifier/classifier.6/Gemm")
// CHECK-DAG: [[LOSS]] = loc("loss")

// Parameters as torchvision counts them.
// SUMMARY: /features/features.0/Conv conv2d 32x64x55x55 23296
// SUMMARY: total: 23 layers, 61100840 parameters
