// A ResNet basic block with a downsampling shortcut, between a stem and a
// classifier: batch norm, a residual add, global pooling. Batch 6 and
// 15x15 images make most splits uneven.
module attributes {hd.model = "resnet-block"} {
  func.func @resnet_block(%x: tensor<6x3x15x15xf32>, %y: tensor<6xi32>) -> tensor<f32> {
    %0 = hd.conv2d %x {bias = false, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, out_channels = 16 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : tensor<6x3x15x15xf32> -> tensor<6x16x15x15xf32> loc("stem/conv")
    %1 = hd.batchnorm %0 {epsilon = 1.000000e-05 : f64, momentum = 9.000000e-01 : f64} : tensor<6x16x15x15xf32> loc("stem/bn")
    %2 = hd.relu %1 : tensor<6x16x15x15xf32> loc("stem/relu")
    %3 = hd.conv2d %2 {bias = false, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, out_channels = 24 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : tensor<6x16x15x15xf32> -> tensor<6x24x8x8xf32> loc("block/conv1")
    %4 = hd.batchnorm %3 {epsilon = 1.000000e-05 : f64, momentum = 9.000000e-01 : f64} : tensor<6x24x8x8xf32> loc("block/bn1")
    %5 = hd.relu %4 : tensor<6x24x8x8xf32> loc("block/relu1")
    %6 = hd.conv2d %5 {bias = false, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, out_channels = 24 : i64, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : tensor<6x24x8x8xf32> -> tensor<6x24x8x8xf32> loc("block/conv2")
    %7 = hd.batchnorm %6 {epsilon = 1.000000e-05 : f64, momentum = 9.000000e-01 : f64} : tensor<6x24x8x8xf32> loc("block/bn2")
    %8 = hd.conv2d %2 {bias = false, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 1, 1>, out_channels = 24 : i64, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : tensor<6x16x15x15xf32> -> tensor<6x24x8x8xf32> loc("block/downsample/conv")
    %9 = hd.batchnorm %8 {epsilon = 1.000000e-05 : f64, momentum = 9.000000e-01 : f64} : tensor<6x24x8x8xf32> loc("block/downsample/bn")
    %10 = hd.add %7, %9 : tensor<6x24x8x8xf32> loc("block/add")
    %11 = hd.relu %10 : tensor<6x24x8x8xf32> loc("block/relu2")
    %12 = hd.pool2d avg %11 {global, kernel = array<i64: 8, 8>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : tensor<6x24x8x8xf32> -> tensor<6x24x1x1xf32> loc("gap")
    %13 = hd.flatten %12 : tensor<6x24x1x1xf32> -> tensor<6x24xf32> loc("flatten")
    %14 = hd.linear %13 {bias = true, out_features = 10 : i64} : tensor<6x24xf32> -> tensor<6x10xf32> loc("fc")
    %15 = hd.softmax_cross_entropy %14, %y : tensor<6x10xf32>, tensor<6xi32> -> tensor<f32> loc("loss")
    return %15 : tensor<f32>
  }
}
