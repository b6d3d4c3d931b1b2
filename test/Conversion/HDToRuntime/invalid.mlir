// RUN: hd-opt %s -split-input-file --hd-lower-to-runtime -verify-diagnostics

// Lowering needs the transfers explicit.
module attributes {hd.devices = 2 : i64} {
  func.func @no_transfer(%x: tensor<2x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %0 = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32> loc("a")
    // expected-error @+1 {{reads operand #0 from 'a' under another configuration, without an hd.transfer (run --hd-insert-transfers)}}
    %1 = hd.softmax_cross_entropy %0, %y {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
    return %1 : tensor<f32>
  }
}

// -----

module attributes {hd.devices = 2 : i64} {
  func.func @unconfigured(%x: tensor<2x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    // expected-error @+1 {{has no configuration; --hd-lower-to-runtime needs every layer configured (run --layerwise-parallelize)}}
    %0 = hd.relu %x : tensor<2x4xf32>
    %1 = hd.softmax_cross_entropy %0, %y {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
    return %1 : tensor<f32>
  }
}

// -----

// expected-error @+1 {{--hd-lower-to-runtime needs a module with hd.devices: run --layerwise-parallelize first}}
module {
  func.func @no_devices(%x: tensor<2x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %1 = hd.softmax_cross_entropy %x, %y : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
    return %1 : tensor<f32>
  }
}

// -----

// An inference graph has nothing to train.
// expected-error @+1 {{--hd-lower-to-runtime needs a training graph that ends with hd.softmax_cross_entropy (import without --no-loss)}}
module attributes {hd.devices = 1 : i64} {
  func.func @inference(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %0 = hd.relu %x {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}

// -----

module attributes {hd.devices = 1 : i64} {
  // expected-error @+1 {{'func.func' op must take (images, labels) to be lowered to the runtime}}
  func.func @labels_first(%y: tensor<2xi32>, %x: tensor<2x4xf32>) -> tensor<f32> {
    %1 = hd.softmax_cross_entropy %x, %y {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
    return %1 : tensor<f32>
  }
}

// -----

module attributes {hd.devices = 1 : i64} {
  // expected-error @+1 {{'hdrt_forward' is a name --hd-lower-to-runtime defines; rename it}}
  func.func private @hdrt_forward(i64)
  func.func @taken(%x: tensor<2x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %1 = hd.softmax_cross_entropy %x, %y {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
    return %1 : tensor<f32>
  }
}

// -----

module attributes {hd.devices = 1 : i64} {
  func.func @a(%x: tensor<2x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %1 = hd.softmax_cross_entropy %x, %y {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
    return %1 : tensor<f32>
  }
  // expected-error @+1 {{--hd-lower-to-runtime handles one training function per module; 'a' has layers too}}
  func.func @b(%x: tensor<2x4xf32>, %y: tensor<2xi32>) -> tensor<f32> {
    %1 = hd.softmax_cross_entropy %x, %y {parallel = #hd.pconfig<n = 1, c = 1>} : tensor<2x4xf32>, tensor<2xi32> -> tensor<f32>
    return %1 : tensor<f32>
  }
}
