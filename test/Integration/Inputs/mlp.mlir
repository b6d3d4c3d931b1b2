// A classifier on 2-D inputs (N x F images), the loss straight after a
// linear layer.
module attributes {hd.model = "mlp"} {
  func.func @mlp(%x: tensor<8x16xf32>, %y: tensor<8xi32>) -> tensor<f32> {
    %0 = hd.linear %x {bias = true, out_features = 12 : i64} : tensor<8x16xf32> -> tensor<8x12xf32> loc("fc1")
    %1 = hd.relu %0 : tensor<8x12xf32> loc("relu")
    %2 = hd.dropout %1 {ratio = 2.500000e-01 : f64} : tensor<8x12xf32> loc("drop")
    %3 = hd.linear %2 {bias = true, out_features = 10 : i64} : tensor<8x12xf32> -> tensor<8x10xf32> loc("fc 2")
    %4 = hd.softmax_cross_entropy %3, %y : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32> loc("loss")
    return %4 : tensor<f32>
  }
}
