// RUN: hd-opt %s -split-input-file -verify-diagnostics

// Every verifier error of the hd dialect, one per split.

// expected-error @+1 {{degree n=0 must be at least 1}}
func.func @degree_zero() attributes {test.c = #hd.pconfig<n = 0, c = 1>} { return }

// -----

// expected-error @+1 {{degree w=-2 must be at least 1}}
func.func @degree_negative() attributes {test.c = #hd.pconfig<n = 1, c = 1, h = 1, w = -2>} { return }

// -----

func.func @degree_exceeds_dim(%x: tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32> {
  // expected-error @+1 {{degree h=4 exceeds height 3 of its output; the largest legal degree is 3}}
  %0 = hd.relu %x {parallel = #hd.pconfig<n = 1, c = 1, h = 4, w = 1>} : tensor<2x4x3x3xf32>
  return %0 : tensor<2x4x3x3xf32>
}

// -----

func.func @batch_degree_exceeds(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{degree n=4 exceeds batch size 2 of its output; the largest legal degree is 2}}
  %0 = hd.linear %x {out_features = 4 : i64, bias = true, parallel = #hd.pconfig<n = 4, c = 1>} : tensor<2x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @linear_has_no_h(%x: tensor<2x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{splits only n and c (its output is 2-D); remove h=2 from the configuration}}
  %0 = hd.linear %x {out_features = 4 : i64, bias = true, parallel = #hd.pconfig<n = 1, c = 1, h = 2>} : tensor<2x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

module attributes {hd.devices = 4 : i64} {
func.func @too_many_tasks(%x: tensor<8x4x8x8xf32>) -> tensor<8x4x8x8xf32> {
  // expected-error @+1 {{configuration #hd.pconfig<n = 4, c = 1, h = 2, w = 1> has 8 tasks but the module is compiled for 4 devices}}
  %0 = hd.relu %x {parallel = #hd.pconfig<n = 4, c = 1, h = 2, w = 1>} : tensor<8x4x8x8xf32>
  return %0 : tensor<8x4x8x8xf32>
}
}

// -----

func.func @parallel_not_pconfig(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{attribute 'parallel' failed to satisfy constraint}}
  %0 = hd.relu %x {parallel = 4 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// expected-error @+1 {{'hd.devices' belongs on the module}}
func.func @devices_on_func() attributes {hd.devices = 4 : i64} { return }

// -----

// expected-error @+1 {{'hd.devices' must be a device count from 1 to 65536}}
module attributes {hd.devices = 0 : i64} {}

// -----

// expected-error @+1 {{'hd.model' must be a string}}
module attributes {hd.model = 3 : i64} {}

// -----

// expected-error @+1 {{unknown hd attribute 'hd.colour'}}
module attributes {hd.colour = "red"} {}

// -----

func.func @conv_input_rank(%x: tensor<2x3x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{input must be a static 4-D NxCxHxW tensor, got 'tensor<2x3x8xf32>'}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv_dynamic(%x: tensor<?x3x8x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{input must be a static 4-D NxCxHxW tensor, got 'tensor<?x3x8x8xf32>'}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<?x3x8x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv_output_shape(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x7x6xf32> {
  // expected-error @+1 {{output shape 2x4x7x6 does not match the expected 2x4x6x6}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x7x6xf32>
  return %0 : tensor<2x4x7x6xf32>
}

// -----

func.func @conv_groups_input(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{input channels 3 are not divisible by groups 2}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv_groups_output(%x: tensor<2x4x8x8xf32>) -> tensor<2x3x6x6xf32> {
  // expected-error @+1 {{out_channels 3 are not divisible by groups 2}}
  %0 = hd.conv2d %x {out_channels = 3 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 2 : i64, bias = true} : tensor<2x4x8x8xf32> -> tensor<2x3x6x6xf32>
  return %0 : tensor<2x3x6x6xf32>
}

// -----

func.func @conv_zero_channels(%x: tensor<2x4x8x8xf32>) -> tensor<2x1x6x6xf32> {
  // expected-error @+1 {{out_channels and groups must be >= 1}}
  %0 = hd.conv2d %x {out_channels = 0 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x4x8x8xf32> -> tensor<2x1x6x6xf32>
  return %0 : tensor<2x1x6x6xf32>
}

// -----

func.func @conv_kernel_too_big(%x: tensor<2x3x4x4xf32>) -> tensor<2x4x1x1xf32> {
  // expected-error @+1 {{kernel height 5 (dilation 1) does not fit the padded input height 4 + 0 + 0}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 5, 5>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x4x4xf32> -> tensor<2x4x1x1xf32>
  return %0 : tensor<2x4x1x1xf32>
}

// -----

func.func @conv_kernel_arity(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{kernel, stride and dilation need 2 values (height, width)}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv_padding_arity(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{padding needs 4 values [top, left, bottom, right], got 2}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv_zero_stride(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{kernel, stride and dilation must be >= 1}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 0, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @conv_negative_padding(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{padding must be >= 0}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, -1, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @pool_output_shape(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x3x3xf32> {
  // expected-error @+1 {{output shape 2x3x3x3 does not match the expected 2x3x4x4}}
  %0 = hd.pool2d max %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : tensor<2x3x8x8xf32> -> tensor<2x3x3x3xf32>
  return %0 : tensor<2x3x3x3xf32>
}

// -----

func.func @pool_padding_too_big(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x6x6xf32> {
  // expected-error @+1 {{padding must be smaller than the kernel, so every window holds an input element}}
  %0 = hd.pool2d max %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 2, 2, 2, 2>} : tensor<2x3x8x8xf32> -> tensor<2x3x6x6xf32>
  return %0 : tensor<2x3x6x6xf32>
}

// -----

func.func @global_pool_kernel(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x2x2xf32> {
  // expected-error @+1 {{global pooling needs kernel = input size 8x8, stride 1 and no padding}}
  %0 = hd.pool2d avg %x {global, kernel = array<i64: 7, 7>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<2x3x8x8xf32> -> tensor<2x3x2x2xf32>
  return %0 : tensor<2x3x2x2xf32>
}

// -----

func.func @pool_kind(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [max, avg]}}
  %0 = hd.pool2d 3 %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>} : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @linear_input_rank(%x: tensor<2x8x1x1xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{input must be a static 2-D NxF tensor, got 'tensor<2x8x1x1xf32>'}}
  %0 = hd.linear %x {out_features = 4 : i64, bias = true} : tensor<2x8x1x1xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @linear_output_shape(%x: tensor<2x8xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{output shape 2x5 does not match the expected 2x4}}
  %0 = hd.linear %x {out_features = 4 : i64, bias = true} : tensor<2x8xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @linear_zero_features(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{out_features must be >= 1}}
  %0 = hd.linear %x {out_features = 0 : i64, bias = true} : tensor<2x8xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @linear_negative_features(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{out_features must be >= 1}}
  %0 = hd.linear %x {out_features = -1 : i64, bias = true} : tensor<2x8xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @conv_negative_groups(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x6x6xf32> {
  // expected-error @+1 {{out_channels and groups must be >= 1}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = -2 : i64, bias = true} : tensor<2x4x8x8xf32> -> tensor<2x4x6x6xf32>
  return %0 : tensor<2x4x6x6xf32>
}

// -----

func.func @relu_rank(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error @+1 {{input must be a static 2-D NxF or 4-D NxCxHxW tensor, got 'tensor<2x3x4xf32>'}}
  %0 = hd.relu %x : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

func.func @relu_type(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %0 = hd.relu %x : tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

func.func @clip_bounds(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{clip's alpha 6 (its minimum) exceeds its beta 0 (its maximum)}}
  %0 = hd.activation clip %x {alpha = 6.0, beta = 0.0} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @hardsigmoid_slope(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{hardsigmoid's alpha 0 must be positive}}
  %0 = hd.activation hardsigmoid %x {beta = 0.5} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @sigmoid_parameters(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{sigmoid takes no alpha or beta}}
  %0 = hd.activation sigmoid %x {alpha = 1.0} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @activation_rank(%x: tensor<2x8x3xf32>) -> tensor<2x8x3xf32> {
  // expected-error @+1 {{input must be a static 2-D NxF or 4-D NxCxHxW tensor}}
  %0 = hd.activation silu %x : tensor<2x8x3xf32>
  return %0 : tensor<2x8x3xf32>
}

// -----

func.func @mul_broadcast(%x: tensor<2x8x4x4xf32>, %s: tensor<2x8x4x1xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{rhs of shape 2x8x4x1 must be the lhs's shape 2x8x4x4 or, for a 4-D lhs, N x C x 1 x 1}}
  %0 = hd.binary mul %x, %s : tensor<2x8x4x4xf32>, tensor<2x8x4x1xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

func.func @channel_operand_3d(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  // expected-error @+1 {{input must be a static 2-D NxF or 4-D NxCxHxW tensor}}
  %0 = hd.channel_binary add %x : tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

func.func @mul_channels(%x: tensor<2x8x4x4xf32>, %s: tensor<2x4x1x1xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{rhs of shape 2x4x1x1 must be the lhs's shape 2x8x4x4 or, for a 4-D lhs, N x C x 1 x 1}}
  %0 = hd.binary mul %x, %s : tensor<2x8x4x4xf32>, tensor<2x4x1x1xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

func.func @dropout_ratio(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{ratio 1 must be in [0, 1)}}
  %0 = hd.dropout %x {ratio = 1.0 : f64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @batchnorm_rank(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{input must be a static 4-D NxCxHxW tensor, got 'tensor<2x8xf32>'}}
  %0 = hd.batchnorm %x {epsilon = 1.0e-5 : f64, momentum = 0.9 : f64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @batchnorm_epsilon(%x: tensor<2x8x2x2xf32>) -> tensor<2x8x2x2xf32> {
  // expected-error @+1 {{epsilon must be positive}}
  %0 = hd.batchnorm %x {epsilon = 0.0 : f64, momentum = 0.9 : f64} : tensor<2x8x2x2xf32>
  return %0 : tensor<2x8x2x2xf32>
}

// -----

func.func @batchnorm_momentum(%x: tensor<2x8x2x2xf32>) -> tensor<2x8x2x2xf32> {
  // expected-error @+1 {{momentum 1.5 must be in [0, 1]}}
  %0 = hd.batchnorm %x {epsilon = 1.0e-5 : f64, momentum = 1.5 : f64} : tensor<2x8x2x2xf32>
  return %0 : tensor<2x8x2x2xf32>
}

// -----

func.func @add_mismatch(%a: tensor<2x8xf32>, %b: tensor<2x4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "hd.add"(%a, %b) : (tensor<2x8xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @add_rank(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{operands must be a static 2-D NxF or 4-D NxCxHxW tensor, got 'tensor<8xf32>'}}
  %0 = hd.add %a, %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @concat_empty() -> tensor<2x8xf32> {
  // expected-error @+1 {{needs at least one input}}
  %0 = "hd.concat"() : () -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @concat_rank(%a: tensor<2x4x3x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x8x3x3xf32> {
  // expected-error @+1 {{input #1 has rank 2 but the output has rank 4}}
  %0 = hd.concat %a, %b : (tensor<2x4x3x3xf32>, tensor<2x4xf32>) -> tensor<2x8x3x3xf32>
  return %0 : tensor<2x8x3x3xf32>
}

// -----

func.func @concat_spatial(%a: tensor<2x4x3x3xf32>, %b: tensor<2x4x3x2xf32>) -> tensor<2x8x3x3xf32> {
  // expected-error @+1 {{input #1 has shape 2x4x3x2; all dims but dim 1 must match the output 2x8x3x3}}
  %0 = hd.concat %a, %b : (tensor<2x4x3x3xf32>, tensor<2x4x3x2xf32>) -> tensor<2x8x3x3xf32>
  return %0 : tensor<2x8x3x3xf32>
}

// -----

func.func @concat_channels(%a: tensor<2x4x3x3xf32>, %b: tensor<2x4x3x3xf32>) -> tensor<2x9x3x3xf32> {
  // expected-error @+1 {{output has 9 channels but the inputs sum to 8}}
  %0 = hd.concat %a, %b : (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<2x9x3x3xf32>
  return %0 : tensor<2x9x3x3xf32>
}

// -----

func.func @flatten_shape(%x: tensor<2x4x3x3xf32>) -> tensor<2x35xf32> {
  // expected-error @+1 {{output shape 2x35 does not match the expected 2x36}}
  %0 = hd.flatten %x : tensor<2x4x3x3xf32> -> tensor<2x35xf32>
  return %0 : tensor<2x35xf32>
}

// -----

func.func @flatten_output_rank(%x: tensor<2x4x3x3xf32>) -> tensor<2x4x9xf32> {
  // expected-error @+1 {{output must be a static 2-D NxF tensor, got 'tensor<2x4x9xf32>'}}
  %0 = hd.flatten %x : tensor<2x4x3x3xf32> -> tensor<2x4x9xf32>
  return %0 : tensor<2x4x9xf32>
}

// -----

func.func @loss_labels(%l: tensor<4x10xf32>, %y: tensor<3xi32>) -> tensor<f32> {
  // expected-error @+1 {{has 3 labels for a batch of 4 logits}}
  %0 = hd.softmax_cross_entropy %l, %y : tensor<4x10xf32>, tensor<3xi32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @loss_logits_rank(%l: tensor<4x10x1x1xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{logits must be a static 2-D NxK tensor, got 'tensor<4x10x1x1xf32>'}}
  %0 = hd.softmax_cross_entropy %l, %y : tensor<4x10x1x1xf32>, tensor<4xi32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @loss_label_type(%l: tensor<4x10xf32>, %y: tensor<4xi64>) -> tensor<f32> {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer values}}
  %0 = hd.softmax_cross_entropy %l, %y : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @loss_degree(%l: tensor<4x10xf32>, %y: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{degree c=11 exceeds channels 10 of its output; the largest legal degree is 10}}
  %0 = hd.softmax_cross_entropy %l, %y {parallel = #hd.pconfig<n = 1, c = 11>} : tensor<4x10xf32>, tensor<4xi32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @too_many_elements(%x: tensor<65536x65536x65536x2xf32>) -> tensor<65536x65536x65536x2xf32> {
  // expected-error @+1 {{input 'tensor<65536x65536x65536x2xf32>' must have between 1 and 2^40 elements}}
  %0 = hd.relu %x : tensor<65536x65536x65536x2xf32>
  return %0 : tensor<65536x65536x65536x2xf32>
}

// -----

func.func @zero_elements(%x: tensor<0x8xf32>) -> tensor<0x8xf32> {
  // expected-error @+1 {{input 'tensor<0x8xf32>' must have between 1 and 2^40 elements}}
  %0 = hd.relu %x : tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// -----

func.func @huge_stride(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x1x1xf32> {
  // expected-error @+1 {{kernel, stride, dilation and padding must be at most 2^31}}
  %0 = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 4611686018427387904, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true} : tensor<2x3x8x8xf32> -> tensor<2x4x1x1xf32>
  return %0 : tensor<2x4x1x1xf32>
}

// -----

// expected-error @+1 {{a move from task 1 to itself is not a transfer}}
func.func @move_to_self() attributes {test.m = #hd.move<src = 1, dst = 1, lo = [0], hi = [1]>} { return }

// -----

// expected-error @+1 {{the box is empty or negative along dim 1: [3, 3)}}
func.func @move_empty() attributes {test.m = #hd.move<src = 0, dst = 1, lo = [0, 3], hi = [1, 3]>} { return }

// -----

// expected-error @+1 {{lo and hi must have one entry per dimension}}
func.func @move_ranks() attributes {test.m = #hd.move<src = 0, dst = 1, lo = [0, 3], hi = [1]>} { return }

// -----

func.func @transfer_task_range(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{move #0 goes from task 2 to task 0, but 'from' has 2 tasks and 'to' has 1}}
  %t = hd.transfer %x {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 1>, moves = [#hd.move<src = 2, dst = 0, lo = [4, 0], hi = [8, 4]>]} : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

func.func @transfer_box_range(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{move #0 reaches 9 along dim 0 of size 8}}
  %t = hd.transfer %x {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 1>, moves = [#hd.move<src = 1, dst = 0, lo = [4, 0], hi = [9, 4]>]} : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

func.func @transfer_box_rank(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{move #0 has a 4-D box for a 2-D tensor}}
  %t = hd.transfer %x {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 1>, moves = [#hd.move<src = 1, dst = 0, lo = [4, 0, 0, 0], hi = [8, 4, 1, 1]>]} : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

func.func @transfer_config_rank(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'from' #hd.pconfig<n = 1, c = 1, h = 2, w = 1> splits h or w of a 2-D tensor}}
  %t = hd.transfer %x {from = #hd.pconfig<n = 1, c = 1, h = 2, w = 1>, to = #hd.pconfig<n = 1, c = 1>, moves = []} : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

func.func @sync_without_parameters(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %r = hd.relu %x : tensor<8x4xf32>
  // expected-error @+1 {{syncs the gradients of a layer with parameters; its operand must be such a layer's output}}
  hd.grad_sync %r {groups = [array<i64: 0, 1>], bytes = 4 : i64} : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

func.func @sync_small_group(%x: tensor<8x6xf32>) -> tensor<8x4xf32> {
  %a = hd.linear %x {out_features = 4 : i64, bias = true} : tensor<8x6xf32> -> tensor<8x4xf32>
  // expected-error @+1 {{replica group #0 has fewer than 2 tasks: nothing to sync}}
  hd.grad_sync %a {groups = [array<i64: 0>], bytes = 4 : i64} : tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @sync_repeated_task(%x: tensor<8x6xf32>) -> tensor<8x4xf32> {
  %a = hd.linear %x {out_features = 4 : i64, bias = true} : tensor<8x6xf32> -> tensor<8x4xf32>
  // expected-error @+1 {{replica group #0 lists task 1 twice or a negative task}}
  hd.grad_sync %a {groups = [array<i64: 0, 1, 1>], bytes = 4 : i64} : tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}

// -----

func.func @sync_bytes(%x: tensor<8x6xf32>) -> tensor<8x4xf32> {
  %a = hd.linear %x {out_features = 4 : i64, bias = true} : tensor<8x6xf32> -> tensor<8x4xf32>
  // expected-error @+1 {{bytes must be positive}}
  hd.grad_sync %a {groups = [array<i64: 0, 1>], bytes = 0 : i64} : tensor<8x4xf32>
  return %a : tensor<8x4xf32>
}

// -----

// expected-error @+1 {{'hd.devices' must be a device count from 1 to 65536}}
module attributes {hd.devices = 1099511627776 : i64} {}

// -----

func.func @too_many_parameters(%x: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32> {
  // expected-error @+1 {{has more than 2^40 parameters}}
  %0 = hd.conv2d %x {out_channels = 1 : i64, kernel = array<i64: 2147483648, 2147483648>, stride = array<i64: 1, 1>, padding = array<i64: 2147483647, 2147483647, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false} : tensor<1x1x1x1xf32> -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

func.func @split_groups(%x: tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32> {
  // expected-error @+1 {{splits its 3 groups in 2 parts; the channel degree must divide the group count}}
  %0 = hd.conv2d %x {out_channels = 6 : i64, kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 3 : i64, bias = false, parallel = #hd.pconfig<n = 1, c = 2, h = 1, w = 1>} : tensor<2x6x4x4xf32> -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// -----

func.func @transfer_degree_above_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'from' degree n=100 exceeds dim 0 of size 4}}
  %t = hd.transfer %x {from = #hd.pconfig<n = 100, c = 1>, to = #hd.pconfig<n = 1, c = 1>, moves = []} : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

func.func @transfer_too_many_tasks(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{#hd.pconfig<n = 4611686018427387904, c = 4> has more than 65536 tasks}}
  %t = hd.transfer %x {from = #hd.pconfig<n = 1, c = 1>, to = #hd.pconfig<n = 4611686018427387904, c = 4>, moves = []} : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

// -----

// The source tensors of a layer's parameters: a dictionary of names.
func.func @tensors_not_names(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'hd.tensors' entry 'weight' must name a tensor (a string)}}
  %0 = hd.linear %x {out_features = 3 : i64, bias = false, hd.tensors = {weight = 7 : i64}} : tensor<2x4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @tensors_not_on_a_layer() {
  // expected-error @+1 {{'hd.tensors' must be a dictionary on a layer, from a parameter's name to the tensor that holds it}}
  return {hd.tensors = {weight = "w"}}
}

// -----

func.func @transposed_unknown(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'hd.tensors_transposed' lists "bias", which 'hd.tensors' does not name}}
  %0 = hd.linear %x {out_features = 3 : i64, bias = false, hd.tensors = {weight = "w"}, hd.tensors_transposed = ["bias"]} : tensor<2x4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The source model: the bytes of an ONNX file, on the module.
// expected-error @+1 {{'hd.source' must be the bytes of an ONNX model, a dense_resource of i8}}
module attributes {hd.source = "model.onnx"} {}

// -----

func.func @slice_outside(%x: tensor<2x16x4x4xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{channels [12, 20) lie outside the input's 16}}
  %0 = hd.slice %x {offset = 12 : i64} : tensor<2x16x4x4xf32> -> tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

func.func @slice_other_dims(%x: tensor<2x16x4x4xf32>) -> tensor<2x8x2x4xf32> {
  // expected-error @+1 {{output shape 2x8x2x4 differs from the input's 2x16x4x4 outside dim 1}}
  %0 = hd.slice %x {offset = 0 : i64} : tensor<2x16x4x4xf32> -> tensor<2x8x2x4xf32>
  return %0 : tensor<2x8x2x4xf32>
}

// -----

func.func @shuffle_groups(%x: tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32> {
  // expected-error @+1 {{groups 4 must be positive and divide the 6 channels}}
  %0 = hd.channel_shuffle %x {groups = 4 : i64} : tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// -----

// Its split rule: an output channel range reads every group.
func.func @shuffle_channel_split(%x: tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{cannot split its channels; the configuration must have c=1}}
  %0 = hd.channel_shuffle %x {groups = 2 : i64, parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}

// -----

func.func @layer_norm_2d(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{input must be a static 4-D NxCxHxW tensor}}
  %0 = hd.layer_norm %x {epsilon = 1.0e-6 : f64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @layer_norm_epsilon(%x: tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32> {
  // expected-error @+1 {{epsilon must be positive}}
  %0 = hd.layer_norm %x {epsilon = 0.0 : f64} : tensor<2x8x4x4xf32>
  return %0 : tensor<2x8x4x4xf32>
}
