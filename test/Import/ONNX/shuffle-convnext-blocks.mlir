// ShuffleNetV2's and ConvNeXt's blocks as PyTorch exports them
// (Inputs/make_torch_blocks.py, torchvision's own classes).
//
// ShuffleNetV2: the shape arithmetic of `x.view(n, 2, c // 2, h, w)` and
// `x.chunk(2, dim=1)` (Shape, Gather, Div, Unsqueeze, Concat, Slice of
// shape values) is folded at import; Reshape-Transpose-Reshape becomes one
// hd.channel_shuffle and each chunk an hd.slice.
// RUN: hd-translate --import-onnx %S/Inputs/shuffle_blocks.onnx --batch-size=2 | FileCheck %s --check-prefix=SHUFFLE
// SHUFFLE: %[[CAT:.*]] = hd.concat %{{.*}}, %{{.*}} : (tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>) -> tensor<2x16x4x4xf32>
// SHUFFLE-NEXT: %[[SH:.*]] = hd.channel_shuffle %[[CAT]] {groups = 2 : i64} : tensor<2x16x4x4xf32>
// SHUFFLE-NEXT: %[[KEEP:.*]] = hd.slice %[[SH]] {offset = 0 : i64} : tensor<2x16x4x4xf32> -> tensor<2x8x4x4xf32>
// SHUFFLE-NEXT: %[[WORK:.*]] = hd.slice %[[SH]] {offset = 8 : i64} : tensor<2x16x4x4xf32> -> tensor<2x8x4x4xf32>
// SHUFFLE-NEXT: hd.conv2d %[[WORK]]
// SHUFFLE: %[[CAT2:.*]] = hd.concat %[[KEEP]], %{{.*}}
// SHUFFLE-NEXT: hd.channel_shuffle %[[CAT2]] {groups = 2 : i64}
// SHUFFLE-NOT: hd.slice
// SHUFFLE: hd.pool2d avg

// ConvNeXt: the Transposes to channels-last and back vanish; LayerNorm2d
// and the block's LayerNorm (the ReduceMean-Sub-Pow-...-Add chain at
// opset 13, LayerNormalization at 17) become hd.layer_norm over the
// channels, each Linear (MatMul by the transposed weight, then the bias
// Add) a 1x1 convolution, the erf chain an exact GELU, and the layer scale
// a depthwise 1x1 convolution without bias.
// RUN: hd-translate --import-onnx %S/Inputs/convnext_blocks.onnx --batch-size=2 | FileCheck %s --check-prefix=CONVNEXT
// RUN: hd-translate --import-onnx %S/Inputs/convnext_blocks17.onnx --batch-size=2 | FileCheck %s --check-prefix=CONVNEXT
// CONVNEXT: %[[STEM:.*]] = hd.conv2d %arg0
// CONVNEXT-NEXT: %[[N0:.*]] = hd.layer_norm %[[STEM]] {epsilon = 9.9999999999999995E-7 : f64, hd.tensors = {scale = "norm.weight", shift = "norm.bias"}} : tensor<2x8x4x4xf32>
// CONVNEXT-NEXT: %[[DW:.*]] = hd.conv2d %[[N0]] {{{.*}}groups = 8 : i64{{.*}}kernel = array<i64: 7, 7>
// CONVNEXT-NEXT: %[[N1:.*]] = hd.layer_norm %[[DW]] {{{.*}}scale = "block.block.2.weight", shift = "block.block.2.bias"}} : tensor<2x8x4x4xf32>
// CONVNEXT-NEXT: %[[UP:.*]] = hd.conv2d %[[N1]] {bias = true, {{.*}}groups = 1 : i64, hd.tensors = {bias = "block.block.3.bias", weight = "block.block.3.weight"}, kernel = array<i64: 1, 1>, out_channels = 32 : i64{{.*}} -> tensor<2x32x4x4xf32>
// CONVNEXT-NEXT: %[[G:.*]] = hd.activation gelu %[[UP]] : tensor<2x32x4x4xf32>
// CONVNEXT-NEXT: %[[DOWN:.*]] = hd.conv2d %[[G]] {bias = true, {{.*}}weight = "block.block.5.weight"}, kernel = array<i64: 1, 1>, out_channels = 8 : i64
// CONVNEXT-NEXT: %[[LS:.*]] = hd.channel_binary mul %[[DOWN]] {hd.tensors = {operand = "block.layer_scale"}} : tensor<2x8x4x4xf32>
// CONVNEXT-NEXT: hd.add %[[LS]], %[[N0]] : tensor<2x8x4x4xf32>
// CONVNEXT-NOT: hd.layer_norm
// CONVNEXT-NOT: hd.activation
