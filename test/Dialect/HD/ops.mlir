// RUN: hd-opt %s | FileCheck %s
// RUN: hd-opt %s | hd-opt | FileCheck %s
// RUN: hd-opt %s --mlir-print-op-generic | hd-opt | FileCheck %s

// Every layer kind, with and without configurations, survives a round trip
// through the custom and the generic form.

module attributes {hd.devices = 16 : i64, hd.model = "ops"} {

// CHECK-LABEL: func.func @layers
func.func @layers(%x: tensor<8x3x17x17xf32>, %labels: tensor<8xi32>) -> tensor<f32> {
  // CHECK: hd.conv2d %{{.*}} {bias = true, dilation = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, out_channels = 16 : i64, padding = array<i64: 1, 1, 1, 1>, parallel = #hd.pconfig<n = 2, c = 1, h = 2, w = 2>, stride = array<i64: 1, 1>} : tensor<8x3x17x17xf32> -> tensor<8x16x17x17xf32>
  %c = hd.conv2d %x {out_channels = 16 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true, parallel = #hd.pconfig<n = 2, c = 1, h = 2, w = 2>} : tensor<8x3x17x17xf32> -> tensor<8x16x17x17xf32>
  // CHECK: hd.batchnorm %{{.*}} {epsilon = 1.000000e-05 : f64, momentum = 9.000000e-01 : f64, parallel = #hd.pconfig<n = 8, c = 2>}
  %b = hd.batchnorm %c {epsilon = 1.0e-5 : f64, momentum = 0.9 : f64, parallel = #hd.pconfig<n = 8, c = 2>} : tensor<8x16x17x17xf32>
  // CHECK: hd.relu %{{.*}} : tensor<8x16x17x17xf32>
  %r = hd.relu %b : tensor<8x16x17x17xf32>
  // Grouped, strided and dilated, with an uneven h split (17 -> 9 + 8).
  // CHECK: hd.conv2d {{.*}}dilation = array<i64: 2, 2>, groups = 4 : i64{{.*}}parallel = #hd.pconfig<n = 1, c = 4, h = 2, w = 1>
  %g = hd.conv2d %r {out_channels = 8 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>, dilation = array<i64: 2, 2>, groups = 4 : i64, bias = false, parallel = #hd.pconfig<n = 1, c = 4, h = 2, w = 1>} : tensor<8x16x17x17xf32> -> tensor<8x8x9x9xf32>
  // CHECK: hd.pool2d max %{{.*}} {ceil_mode = true, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : tensor<8x8x9x9xf32> -> tensor<8x8x5x5xf32>
  %p = hd.pool2d max %g {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, ceil_mode = true} : tensor<8x8x9x9xf32> -> tensor<8x8x5x5xf32>
  // CHECK: hd.pool2d avg %{{.*}} {count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
  %a = hd.pool2d avg %p {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<8x8x5x5xf32> -> tensor<8x8x5x5xf32>
  // CHECK: hd.add %{{.*}}, %{{.*}} {parallel = #hd.pconfig<n = 1, c = 1, h = 5, w = 3>} : tensor<8x8x5x5xf32>
  %s = hd.add %a, %p {parallel = #hd.pconfig<n = 1, c = 1, h = 5, w = 3>} : tensor<8x8x5x5xf32>
  // CHECK: hd.concat %{{.*}}, %{{.*}} : (tensor<8x8x5x5xf32>, tensor<8x8x5x5xf32>) -> tensor<8x16x5x5xf32>
  %cat = hd.concat %s, %a : (tensor<8x8x5x5xf32>, tensor<8x8x5x5xf32>) -> tensor<8x16x5x5xf32>
  // CHECK: hd.pool2d avg %{{.*}} {global, kernel = array<i64: 5, 5>, padding = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : tensor<8x16x5x5xf32> -> tensor<8x16x1x1xf32>
  %gp = hd.pool2d avg %cat {global, kernel = array<i64: 5, 5>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<8x16x5x5xf32> -> tensor<8x16x1x1xf32>
  // CHECK: hd.flatten %{{.*}} : tensor<8x16x1x1xf32> -> tensor<8x16xf32>
  %f = hd.flatten %gp : tensor<8x16x1x1xf32> -> tensor<8x16xf32>
  // CHECK: hd.dropout %{{.*}} {ratio = 5.000000e-01 : f64} : tensor<8x16xf32>
  %d = hd.dropout %f {ratio = 0.5 : f64} : tensor<8x16xf32>
  // CHECK: hd.linear %{{.*}} {bias = true, out_features = 10 : i64, parallel = #hd.pconfig<n = 1, c = 2>} : tensor<8x16xf32> -> tensor<8x10xf32>
  %l = hd.linear %d {out_features = 10 : i64, bias = true, parallel = #hd.pconfig<n = 1, c = 2>} : tensor<8x16xf32> -> tensor<8x10xf32>
  // CHECK: hd.softmax_cross_entropy %{{.*}}, %{{.*}} {parallel = #hd.pconfig<n = 4, c = 1>} : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32>
  %loss = hd.softmax_cross_entropy %l, %labels {parallel = #hd.pconfig<n = 4, c = 1>} : tensor<8x10xf32>, tensor<8xi32> -> tensor<f32>
  return %loss : tensor<f32>
}

// The activations and products of today's CNNs.
// CHECK-LABEL: func.func @modern
func.func @modern(%x: tensor<8x16x9x9xf32>) -> tensor<8x16x9x9xf32> {
  // CHECK: hd.activation clip %{{.*}} {beta = 6.000000e+00 : f64} : tensor<8x16x9x9xf32>
  %r6 = hd.activation clip %x {alpha = 0.0, beta = 6.0} : tensor<8x16x9x9xf32>
  // CHECK: hd.activation hardswish %{{.*}} {parallel = #hd.pconfig<n = 2, c = 1, h = 2, w = 2>} : tensor<8x16x9x9xf32>
  %hs = hd.activation hardswish %r6 {parallel = #hd.pconfig<n = 2, c = 1, h = 2, w = 2>} : tensor<8x16x9x9xf32>
  // CHECK: hd.activation silu %{{.*}} : tensor<8x16x9x9xf32>
  %si = hd.activation silu %hs : tensor<8x16x9x9xf32>
  // CHECK: hd.activation gelu %{{.*}} : tensor<8x16x9x9xf32>
  %ge = hd.activation gelu %si : tensor<8x16x9x9xf32>
  %gp = hd.pool2d avg %ge {global, kernel = array<i64: 9, 9>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<8x16x9x9xf32> -> tensor<8x16x1x1xf32>
  // CHECK: hd.activation sigmoid %{{.*}} : tensor<8x16x1x1xf32>
  %sg = hd.activation sigmoid %gp : tensor<8x16x1x1xf32>
  // CHECK: hd.activation hardsigmoid %{{.*}} {alpha = 0.16666666666666666 : f64, beta = 5.000000e-01 : f64} : tensor<8x16x1x1xf32>
  %hg = hd.activation hardsigmoid %sg {alpha = 0.16666666666666666, beta = 0.5} : tensor<8x16x1x1xf32>
  // Squeeze-and-excitation's scale, split over h and w, and a product of
  // two activations of one shape.
  // CHECK: hd.binary mul %{{.*}}, %{{.*}} {parallel = #hd.pconfig<n = 1, c = 2, h = 3, w = 1>} : tensor<8x16x9x9xf32>, tensor<8x16x1x1xf32>
  %se = hd.binary mul %ge, %hg {parallel = #hd.pconfig<n = 1, c = 2, h = 3, w = 1>} : tensor<8x16x9x9xf32>, tensor<8x16x1x1xf32>
  // CHECK: hd.binary mul %{{.*}}, %{{.*}} : tensor<8x16x9x9xf32>, tensor<8x16x9x9xf32>
  %sq = hd.binary mul %se, %x : tensor<8x16x9x9xf32>, tensor<8x16x9x9xf32>
  // The layer's own per-channel operand: a frozen buffer, a trained
  // parameter split over channels and rows.
  // CHECK: hd.channel_binary sub %{{.*}} {frozen} : tensor<8x16x9x9xf32>
  %nm = hd.channel_binary sub %sq {frozen} : tensor<8x16x9x9xf32>
  // CHECK: hd.channel_binary div %{{.*}} {parallel = #hd.pconfig<n = 1, c = 4, h = 2, w = 1>} : tensor<8x16x9x9xf32>
  %ls = hd.channel_binary div %nm {parallel = #hd.pconfig<n = 1, c = 4, h = 2, w = 1>} : tensor<8x16x9x9xf32>
  return %ls : tensor<8x16x9x9xf32>
}

// Explicit data movement.
// CHECK-LABEL: func.func @movement
func.func @movement(%x: tensor<8x6xf32>) -> tensor<8x4xf32> {
  %a = hd.linear %x {out_features = 4 : i64, bias = true, parallel = #hd.pconfig<n = 2, c = 1>} : tensor<8x6xf32> -> tensor<8x4xf32>
  // CHECK: hd.grad_sync %{{.*}} {bytes = 112 : i64, groups = [array<i64: 0, 1>]} : tensor<8x4xf32>
  hd.grad_sync %a {groups = [array<i64: 0, 1>], bytes = 112 : i64} : tensor<8x4xf32>
  // CHECK: hd.transfer %{{.*}} {from = #hd.pconfig<n = 2, c = 1>, moves = [#hd.move<src = 1, dst = 0, lo = [4, 0], hi = [8, 4]>], to = #hd.pconfig<n = 1, c = 1>} : tensor<8x4xf32>
  %t = hd.transfer %a {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 1>, moves = [#hd.move<src = 1, dst = 0, lo = [4, 0], hi = [8, 4]>]} : tensor<8x4xf32>
  %r = hd.relu %t {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// The attribute on its own, with and without the spatial degrees.
// CHECK-LABEL: func.func @configs
// CHECK-SAME: test.a = #hd.pconfig<n = 4, c = 1, h = 2, w = 2>
// CHECK-SAME: test.b = #hd.pconfig<n = 2, c = 8>
func.func @configs() attributes {test.a = #hd.pconfig<n = 4, c = 1, h = 2, w = 2>, test.b = #hd.pconfig<n = 2, c = 8>} {
  return
}

// Where a layer's parameters come from in the source model.
// CHECK-LABEL: func.func @sources
// CHECK: hd.linear %{{.*}} {bias = true, hd.tensors = {bias = "fc.bias", weight = "fc.weight"}, hd.tensors_transposed = ["weight"], out_features = 3 : i64}
func.func @sources(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %0 = hd.linear %x {out_features = 3 : i64, bias = true, hd.tensors = {weight = "fc.weight", bias = "fc.bias"}, hd.tensors_transposed = ["weight"]} : tensor<2x4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}


// ShuffleNet's channel split and shuffle, and ConvNeXt's layer norm over
// channels, round-trip with their configurations.
// CHECK-LABEL: func.func @today_layouts
// CHECK: hd.slice %{{.*}} {offset = 8 : i64, parallel = #hd.pconfig<n = 1, c = 2, h = 2, w = 1>} : tensor<2x16x4x4xf32> -> tensor<2x8x4x4xf32>
// CHECK: hd.channel_shuffle %{{.*}} {groups = 2 : i64, parallel = #hd.pconfig<n = 2, c = 1, h = 1, w = 2>} : tensor<2x8x4x4xf32>
// CHECK: hd.layer_norm %{{.*}} {epsilon = 9.9999999999999995E-7 : f64, parallel = #hd.pconfig<n = 1, c = 4, h = 1, w = 1>} : tensor<2x8x4x4xf32>
func.func @today_layouts(%x: tensor<2x16x4x4xf32>) -> tensor<2x8x4x4xf32> {
  %0 = hd.slice %x {offset = 8 : i64, parallel = #hd.pconfig<n = 1, c = 2, h = 2, w = 1>} : tensor<2x16x4x4xf32> -> tensor<2x8x4x4xf32>
  %1 = hd.channel_shuffle %0 {groups = 2 : i64, parallel = #hd.pconfig<n = 2, c = 1, h = 1, w = 2>} : tensor<2x8x4x4xf32>
  %2 = hd.layer_norm %1 {epsilon = 1.0e-6 : f64, parallel = #hd.pconfig<n = 1, c = 4, h = 1, w = 1>} : tensor<2x8x4x4xf32>
  return %2 : tensor<2x8x4x4xf32>
}
}
