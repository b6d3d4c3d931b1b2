// Add, Sub, Mul and Div by a per-channel parameter ([C, 1, 1] or
// [1, C, 1, 1] on N x C x H x W, [F] on N x F) import as hd.channel_binary,
// the layer owning the tensor. A layer scale may come first in its Mul; the
// buffers --frozen-tensors names are frozen, the rest trained.
// RUN: hd-translate --import-onnx %S/Inputs/channel_operands.onnx --batch-size=2 --frozen-tensors=mean,std | FileCheck %s
// RUN: hd-translate --import-onnx %S/Inputs/channel_operands.onnx --batch-size=2 | FileCheck %s --check-prefix=TRAINED

// CHECK: %[[M:.*]] = hd.channel_binary sub %arg0 {frozen, hd.tensors = {operand = "mean"}} : tensor<2x3x6x6xf32>
// CHECK-NEXT: %[[S:.*]] = hd.channel_binary div %[[M]] {frozen, hd.tensors = {operand = "std"}} : tensor<2x3x6x6xf32>
// CHECK-NEXT: %[[C:.*]] = hd.conv2d %[[S]]
// CHECK-NEXT: %[[L:.*]] = hd.channel_binary mul %[[C]] {hd.tensors = {operand = "scale"}} : tensor<2x4x6x6xf32>
// CHECK-NEXT: %[[O:.*]] = hd.channel_binary sub %[[L]] {hd.tensors = {operand = "offset"}} : tensor<2x4x6x6xf32>
// CHECK: %[[FC:.*]] = hd.linear
// CHECK-NEXT: %[[B:.*]] = hd.channel_binary add %[[FC]] {hd.tensors = {operand = "bias"}} : tensor<2x5xf32>
// CHECK-NEXT: hd.softmax_cross_entropy %[[B]], %arg1

// Without --frozen-tensors, every initializer is a parameter the model
// trains, as ONNX cannot tell buffers apart.
// TRAINED-NOT: frozen
// TRAINED: hd.channel_binary sub %arg0 {hd.tensors = {operand = "mean"}}
// TRAINED-NOT: frozen
