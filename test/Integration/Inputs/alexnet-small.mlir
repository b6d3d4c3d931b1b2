// AlexNet's layer sequence at a size that trains in seconds on CPU
// processes: 63x63 images, fewer channels and features, batch 8.
module attributes {hd.model = "alexnet-small"} {
  func.func @alexnet_small(%x: tensor<8x3x63x63xf32>, %y: tensor<8xi32>) -> tensor<f32> {
    %0 = hd.conv2d %x {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 11, 11>, out_channels = 16 : i64, padding = array<i64: 2, 2, 2, 2>, stride = array<i64: 4, 4>} : tensor<8x3x63x63xf32> -> tensor<8x16x15x15xf32> loc("conv1")
    %1 = hd.relu %0 : tensor<8x16x15x15xf32> loc("relu1")
    %2 = hd.pool2d max %1 {kernel = array<i64: 3, 3>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : tensor<8x16x15x15xf32> -> tensor<8x16x7x7xf32> loc("pool1")
    %3 = hd.conv2d %2 {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 5, 5>, out_channels = 32 : i64, padding = array<i64: 2, 2, 2, 2>, stride = array<i64: 1, 1>} : tensor<8x16x7x7xf32> -> tensor<8x32x7x7xf32> loc("conv2")
    %4 = hd.relu %3 : tensor<8x32x7x7xf32> loc("relu2")
    %5 = hd.pool2d max %4 {kernel = array<i64: 3, 3>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : tensor<8x32x7x7xf32> -> tensor<8x32x3x3xf32> loc("pool2")
    %6 = hd.conv2d %5 {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, out_channels = 48 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : tensor<8x32x3x3xf32> -> tensor<8x48x3x3xf32> loc("conv3")
    %7 = hd.relu %6 : tensor<8x48x3x3xf32> loc("relu3")
    %8 = hd.conv2d %7 {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, out_channels = 32 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : tensor<8x48x3x3xf32> -> tensor<8x32x3x3xf32> loc("conv4")
    %9 = hd.relu %8 : tensor<8x32x3x3xf32> loc("relu4")
    %10 = hd.conv2d %9 {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, out_channels = 32 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : tensor<8x32x3x3xf32> -> tensor<8x32x3x3xf32> loc("conv5")
    %11 = hd.relu %10 : tensor<8x32x3x3xf32> loc("relu5")
    %12 = hd.pool2d max %11 {kernel = array<i64: 3, 3>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : tensor<8x32x3x3xf32> -> tensor<8x32x1x1xf32> loc("pool5")
    %13 = hd.flatten %12 : tensor<8x32x1x1xf32> -> tensor<8x32xf32> loc("flatten")
    %14 = hd.dropout %13 {ratio = 5.000000e-01 : f64} : tensor<8x32xf32> loc("drop6")
    %15 = hd.linear %14 {bias = true, out_features = 64 : i64} : tensor<8x32xf32> -> tensor<8x64xf32> loc("fc6")
    %16 = hd.relu %15 : tensor<8x64xf32> loc("relu6")
    %17 = hd.dropout %16 {ratio = 5.000000e-01 : f64} : tensor<8x64xf32> loc("drop7")
    %18 = hd.linear %17 {bias = true, out_features = 64 : i64} : tensor<8x64xf32> -> tensor<8x64xf32> loc("fc7")
    %19 = hd.relu %18 : tensor<8x64xf32> loc("relu7")
    %20 = hd.linear %19 {bias = true, out_features = 10 : i64} : tensor<8x64xf32> -> tensor<8x10xf32> loc("fc8")
    %21 = hd.softmax_cross_entropy %20, %y : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32> loc("loss")
    return %21 : tensor<f32>
  }
}
