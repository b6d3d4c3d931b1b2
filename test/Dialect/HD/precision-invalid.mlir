// RUN: hd-opt %s -split-input-file -verify-diagnostics

// The verifier applies autocast's rules to every layer of a module with a
// precision: normalization statistics and the loss in f32, elementwise
// layers in their inputs' type, dense layers in f32 or the program's type.

module attributes {hd.precision = bf16} {
  func.func @bn_in_bf16(%x: tensor<8x4x6x6xf32>) -> tensor<8x4x6x6xf32> {
    %c = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false, hd.compute_type = bf16} : tensor<8x4x6x6xf32> -> tensor<8x4x6x6xf32>
    // expected-error @+1 {{'hd.compute_type' computes in bf16 but normalization computes its statistics in f32 (f32)}}
    %b = hd.batchnorm %c {epsilon = 1.0e-05 : f64, momentum = 0.9 : f64, hd.compute_type = bf16} : tensor<8x4x6x6xf32>
    return %b : tensor<8x4x6x6xf32>
  }
}

// -----

module attributes {hd.precision = bf16} {
  func.func @relu_wider_than_input(%x: tensor<8x4x6x6xf32>) -> tensor<8x4x6x6xf32> {
    %c = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false, hd.compute_type = bf16} : tensor<8x4x6x6xf32> -> tensor<8x4x6x6xf32>
    // expected-error @+1 {{'hd.compute_type' computes in f32 but this layer computes in the type of its inputs (bf16)}}
    %r = hd.relu %c {hd.compute_type = f32} : tensor<8x4x6x6xf32>
    return %r : tensor<8x4x6x6xf32>
  }
}

// -----

module attributes {hd.precision = bf16} {
  func.func @conv_in_another_low_type(%x: tensor<8x4x6x6xf32>) -> tensor<8x4x6x6xf32> {
    // expected-error @+1 {{'hd.compute_type' computes in f16 in a program of precision bf16: a convolution or matrix product computes in f32 or the program's type (bf16)}}
    %c = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false, hd.compute_type = f16} : tensor<8x4x6x6xf32> -> tensor<8x4x6x6xf32>
    return %c : tensor<8x4x6x6xf32>
  }
}

// -----

module attributes {hd.precision = bf16} {
  func.func @missing(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{has no 'hd.compute_type' in a module of precision bf16 ('hd.precision')}}
    %r = hd.relu %x : tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
}

// -----

module attributes {hd.precision = bf16} {
  func.func @loss_in_bf16(%x: tensor<8x4xf32>, %y: tensor<8xi32>) -> tensor<f32> {
    // expected-error @+1 {{'hd.compute_type' computes in bf16 but the loss computes in f32 (f32)}}
    %l = hd.softmax_cross_entropy %x, %y {hd.compute_type = bf16} : tensor<8x4xf32>, tensor<8xi32> -> tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// expected-error @+1 {{'hd.precision' must be f32, bf16 or f16}}
module attributes {hd.precision = i8} {
}

// -----

// expected-error @+1 {{'hd.grad_sync_type' must be f32 or bf16: fp16 gradients would overflow their sum}}
module attributes {hd.precision = f16, hd.grad_sync_type = f16} {
}

// -----

// expected-error @+1 {{'hd.grad_sync_type' is bf16 in a module whose 'hd.precision' is not bf16}}
module attributes {hd.grad_sync_type = bf16} {
}

// -----

module {
  func.func @no_module_precision(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{'hd.compute_type' is bf16 in a module without 'hd.precision'}}
    %r = hd.relu %x {hd.compute_type = bf16} : tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
}

// -----

// expected-error @+1 {{'hd.compute_type' belongs on a layer}}
module attributes {hd.precision = bf16, hd.compute_type = bf16} {
}

// -----

// expected-error @+1 {{'hd.precision' belongs on the module}}
func.func @not_on_module() attributes {hd.precision = bf16} {
  return
}
