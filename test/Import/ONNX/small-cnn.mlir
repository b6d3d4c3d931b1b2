// Every supported ONNX layer kind in one small CNN: branches, a grouped
// convolution, a zero Pad folded into an average pool, channel concat,
// a residual add, ceil-mode and global pooling, dropout and a classifier.
// RUN: hd-translate --import-onnx %S/Inputs/small_cnn.onnx --batch-size=4 | FileCheck %s
// RUN: hd-translate --import-onnx %S/Inputs/small_cnn.onnx --batch-size=4 | hd-opt --mlir-print-debuginfo | FileCheck %s

// CHECK: module attributes {hd.model = "small_cnn", hd.source = dense_resource<hd_source>
// CHECK: func.func @small_cnn(%[[X:.*]]: tensor<4x3x15x15xf32> loc("x"), %[[Y:.*]]: tensor<4xi32> loc("labels")) -> tensor<f32>
// CHECK: %[[C0:.*]] = hd.conv2d %[[X]] {bias = true, {{.*}}out_channels = 8 : i64{{.*}} -> tensor<4x8x15x15xf32> loc(#[[STEM:loc[0-9]*]])
// CHECK: %[[BN:.*]] = hd.batchnorm %[[C0]] {epsilon = 1.000000e-05 : f64, hd.tensors = {running_mean = "m0", running_var = "v0", scale = "s0", shift = "o0"}, momentum = 9.000000e-01 : f64} : tensor<4x8x15x15xf32>
// CHECK: %[[R:.*]] = hd.relu %[[BN]]
// CHECK: %[[A:.*]] = hd.conv2d %[[R]] {bias = false, {{.*}}kernel = array<i64: 1, 1>{{.*}} -> tensor<4x4x15x15xf32>
// CHECK: %[[B:.*]] = hd.conv2d %[[R]] {bias = false, {{.*}}groups = 2 : i64{{.*}} -> tensor<4x6x15x15xf32>
// CHECK: %[[P:.*]] = hd.pool2d avg %[[R]] {count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : tensor<4x8x15x15xf32> -> tensor<4x8x15x15xf32> loc(#[[POOL:loc[0-9]*]])
// CHECK: %[[CAT:.*]] = hd.concat %[[A]], %[[B]], %[[P]] : (tensor<4x4x15x15xf32>, tensor<4x6x15x15xf32>, tensor<4x8x15x15xf32>) -> tensor<4x18x15x15xf32>
// CHECK: %[[PROJ:.*]] = hd.conv2d %[[CAT]]
// CHECK: %[[RES:.*]] = hd.add %[[PROJ]], %[[R]] : tensor<4x8x15x15xf32>
// CHECK: hd.pool2d max %[[RES]] {ceil_mode = true, {{.*}} -> tensor<4x8x8x8xf32>
// CHECK: hd.pool2d avg %{{.*}} {global, kernel = array<i64: 8, 8>{{.*}} -> tensor<4x8x1x1xf32>
// CHECK: hd.flatten
// CHECK: hd.dropout %{{.*}} {ratio = 2.500000e-01 : f64} : tensor<4x8xf32>
// CHECK: %[[L:.*]] = hd.linear %{{.*}} {bias = true, hd.tensors = {bias = "bf", weight = "wf"}, out_features = 10 : i64} : tensor<4x8xf32> -> tensor<4x10xf32>
// CHECK: %[[LOSS:.*]] = hd.softmax_cross_entropy %[[L]], %[[Y]] : tensor<4x10xf32>, tensor<4xi32> -> tensor<f32>
// CHECK: return %[[LOSS]] : tensor<f32>
// CHECK-DAG: #[[STEM]] = loc("stem/conv")
// CHECK-DAG: #[[POOL]] = loc("branch_c/avgpool")
// The folded Pad leaves no trace.
// CHECK-NOT: branch_c/pad"
