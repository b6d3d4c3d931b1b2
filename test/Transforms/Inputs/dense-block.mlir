// A DenseNet-style block: each convolution reads the concatenation of the
// block input and every earlier convolution, so the graph is not
// series-parallel and does not reduce to one node.
module attributes {hd.model = "dense"} {
  func.func @dense(%x: tensor<32x16x16x16xf32>, %y: tensor<32xi32>) -> tensor<f32> {
    %in = hd.relu %x : tensor<32x16x16x16xf32> loc("stem")
    %c0 = hd.conv2d %in {out_channels = 8 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false} : tensor<32x16x16x16xf32> -> tensor<32x8x16x16xf32> loc("conv0")
    %cat1 = hd.concat %in, %c0 : (tensor<32x16x16x16xf32>, tensor<32x8x16x16xf32>) -> tensor<32x24x16x16xf32> loc("concat1")
    %c1 = hd.conv2d %cat1 {out_channels = 8 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false} : tensor<32x24x16x16xf32> -> tensor<32x8x16x16xf32> loc("conv1")
    %cat2 = hd.concat %in, %c0, %c1 : (tensor<32x16x16x16xf32>, tensor<32x8x16x16xf32>, tensor<32x8x16x16xf32>) -> tensor<32x32x16x16xf32> loc("concat2")
    %c2 = hd.conv2d %cat2 {out_channels = 8 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false} : tensor<32x32x16x16xf32> -> tensor<32x8x16x16xf32> loc("conv2")
    %cat3 = hd.concat %in, %c0, %c1, %c2 : (tensor<32x16x16x16xf32>, tensor<32x8x16x16xf32>, tensor<32x8x16x16xf32>, tensor<32x8x16x16xf32>) -> tensor<32x40x16x16xf32> loc("concat3")
    %c3 = hd.conv2d %cat3 {out_channels = 8 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false} : tensor<32x40x16x16xf32> -> tensor<32x8x16x16xf32> loc("conv3")
    %out = hd.concat %in, %c0, %c1, %c2, %c3 : (tensor<32x16x16x16xf32>, tensor<32x8x16x16xf32>, tensor<32x8x16x16xf32>, tensor<32x8x16x16xf32>, tensor<32x8x16x16xf32>) -> tensor<32x48x16x16xf32> loc("concat_out")
    %g = hd.pool2d avg %out {global, kernel = array<i64: 16, 16>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<32x48x16x16xf32> -> tensor<32x48x1x1xf32> loc("gap")
    %f = hd.flatten %g : tensor<32x48x1x1xf32> -> tensor<32x48xf32> loc("flatten")
    %l = hd.linear %f {out_features = 10 : i64, bias = true} : tensor<32x48xf32> -> tensor<32x10xf32> loc("fc")
    %loss = hd.softmax_cross_entropy %l, %y : tensor<32x10xf32>, tensor<32xi32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
}
