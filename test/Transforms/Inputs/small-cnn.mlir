// A small CNN shared by the --layerwise-parallelize tests: two convolutions,
// pooling, a residual add, and a classifier.
module attributes {hd.model = "small"} {
  func.func @small(%x: tensor<16x3x32x32xf32>, %y: tensor<16xi32>) -> tensor<f32> {
    %c1 = hd.conv2d %x {out_channels = 32 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<16x3x32x32xf32> -> tensor<16x32x32x32xf32> loc("conv1")
    %r1 = hd.relu %c1 : tensor<16x32x32x32xf32> loc("relu1")
    %p1 = hd.pool2d max %r1 {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : tensor<16x32x32x32xf32> -> tensor<16x32x16x16xf32> loc("pool1")
    %c2 = hd.conv2d %p1 {out_channels = 32 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<16x32x16x16xf32> -> tensor<16x32x16x16xf32> loc("conv2")
    %s = hd.add %c2, %p1 : tensor<16x32x16x16xf32> loc("residual")
    %g = hd.pool2d avg %s {global, kernel = array<i64: 16, 16>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<16x32x16x16xf32> -> tensor<16x32x1x1xf32> loc("gap")
    %f = hd.flatten %g : tensor<16x32x1x1xf32> -> tensor<16x32xf32> loc("flatten")
    %l = hd.linear %f {out_features = 10 : i64, bias = true} : tensor<16x32xf32> -> tensor<16x10xf32> loc("fc")
    %loss = hd.softmax_cross_entropy %l, %y : tensor<16x10xf32>, tensor<16xi32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
}
