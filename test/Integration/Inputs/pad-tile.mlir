// A convolution whose bottom padding is wider than its image: split in
// height, the second tile's windows lie entirely in the padding.
module attributes {hd.model = "pad-tile"} {
  func.func @pad_tile(%x: tensor<2x3x2x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %0 = hd.conv2d %x {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 1, 1>, out_channels = 4 : i64, padding = array<i64: 0, 0, 3, 0>, stride = array<i64: 1, 1>} : tensor<2x3x2x4xf32> -> tensor<2x4x5x4xf32> loc("conv")
    %1 = hd.flatten %0 : tensor<2x4x5x4xf32> -> tensor<2x80xf32> loc("flatten")
    %2 = hd.linear %1 {bias = true, out_features = 10 : i64} : tensor<2x80xf32> -> tensor<2x10xf32> loc("fc")
    %3 = hd.softmax_cross_entropy %2, %y : tensor<2x10xf32>, tensor<2xi32> -> tensor<f32> loc("loss")
    return %3 : tensor<f32>
  }
}
