// The blocks of today's CNNs, as PyTorch exports them: ReLU6 as Clip, hard
// swish as x * HardSigmoid(x) (opset 13), squeeze-and-excitation (a global
// pool, two 1x1 convolutions, a sigmoid gate scaling the channels), SiLU as
// x * Sigmoid(x), and ReduceMean over H and W as the global pool. The
// products of an activation with itself become one hd.activation; the gate
// becomes hd.binary mul with the N x C x 1 x 1 operand second, whatever the
// order.
// RUN: hd-translate --import-onnx %S/Inputs/modern_cnn.onnx --batch-size=4 | FileCheck %s
// RUN: hd-translate --import-onnx %S/Inputs/opset20.onnx --batch-size=4 | FileCheck %s --check-prefix=NEW

// CHECK: %[[C:.*]] = hd.conv2d %arg0
// CHECK: %[[R6:.*]] = hd.activation clip %[[C]] {beta = 6.000000e+00 : f64} : tensor<4x8x8x8xf32> loc(#[[RELU6:loc[0-9]*]])
// CHECK: %[[DW:.*]] = hd.conv2d %[[R6]] {{{.*}}groups = 8 : i64
// CHECK-NOT: hardsigmoid
// CHECK: %[[HS:.*]] = hd.activation hardswish %[[DW]] : tensor<4x8x8x8xf32> loc(#[[HSWISH:loc[0-9]*]])
// CHECK: %[[SQ:.*]] = hd.pool2d avg %[[HS]] {global
// CHECK: %[[G:.*]] = hd.activation sigmoid %{{.*}} : tensor<4x8x1x1xf32>
// CHECK: %[[SE:.*]] = hd.binary mul %[[HS]], %[[G]] : tensor<4x8x8x8xf32>, tensor<4x8x1x1xf32>
// CHECK-NOT: sigmoid
// CHECK: %[[SILU:.*]] = hd.activation silu %[[SE]] : tensor<4x8x8x8xf32> loc(#[[SILULOC:loc[0-9]*]])
// CHECK: %[[M:.*]] = hd.pool2d avg %[[SILU]] {global, kernel = array<i64: 8, 8>{{.*}} -> tensor<4x8x1x1xf32> loc(#[[MEAN:loc[0-9]*]])
// CHECK: hd.flatten %[[M]] : tensor<4x8x1x1xf32> -> tensor<4x8xf32> loc(#[[FLAT:loc[0-9]*]])
// CHECK-DAG: #[[RELU6]] = loc("stem/relu6")
// CHECK-DAG: #[[HSWISH]] = loc("block/hardswish")
// CHECK-DAG: #[[SILULOC]] = loc("head/silu")
// CHECK-DAG: #[[MEAN]] = loc("head/mean")
// CHECK-DAG: #[[FLAT]] = loc("head/mean.flatten")

// NEW: hd.activation hardswish %{{.*}} : tensor<4x4x6x6xf32>
// NEW: hd.activation gelu %{{.*}} : tensor<4x4x6x6xf32>
// NEW: hd.pool2d avg %{{.*}} {global, {{.*}} -> tensor<4x4x1x1xf32>
// NEW: hd.flatten

// Dropout turned off (ratio 0) is no layer: the flatten reads the
// convolution.
// RUN: hd-translate --import-onnx %S/Inputs/dropout_off.onnx --batch-size=2 | FileCheck %s --check-prefix=OFF
// OFF: %[[C:.*]] = hd.conv2d %arg0
// OFF-NEXT: hd.flatten %[[C]]
// OFF-NOT: hd.dropout

// Sum, difference, product and quotient with a per-sample, per-channel
// operand (second; Add's is moved there), or of one shape.
// RUN: hd-translate --import-onnx %S/Inputs/binary_broadcast.onnx --batch-size=2 | FileCheck %s --check-prefix=BINARY
// BINARY: %[[C:.*]] = hd.conv2d %arg0
// BINARY: %[[G:.*]] = hd.activation sigmoid %{{.*}} : tensor<2x4x1x1xf32>
// BINARY-NEXT: %[[A:.*]] = hd.binary add %[[C]], %[[G]] : tensor<2x4x6x6xf32>, tensor<2x4x1x1xf32>
// BINARY-NEXT: %[[S:.*]] = hd.binary sub %[[A]], %[[G]] : tensor<2x4x6x6xf32>, tensor<2x4x1x1xf32>
// BINARY-NEXT: %[[D:.*]] = hd.binary div %[[S]], %[[G]] : tensor<2x4x6x6xf32>, tensor<2x4x1x1xf32>
// BINARY-NEXT: %[[M:.*]] = hd.binary mul %[[D]], %[[G]] : tensor<2x4x6x6xf32>, tensor<2x4x1x1xf32>
// BINARY-NEXT: %[[SG:.*]] = hd.activation sigmoid %[[C]] : tensor<2x4x6x6xf32>
// BINARY-NEXT: %[[Q:.*]] = hd.binary div %[[M]], %[[SG]] : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
// BINARY-NEXT: hd.binary sub %[[Q]], %[[C]] : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
