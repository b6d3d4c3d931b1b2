// RUN: hd-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect --layerwise-parallelize="devices=4 machine=p100-cluster"

// A pinned configuration that needs more devices than there are.
func.func @too_many_tasks(%x: tensor<16x8x8x8xf32>) -> tensor<16x8x8x8xf32> {
  // expected-error @+1 {{pinned configuration #hd.pconfig<n = 2, c = 1, h = 2, w = 2> has 8 tasks but only 4 devices are available}}
  %r = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1, h = 2, w = 2>} : tensor<16x8x8x8xf32>
  return %r : tensor<16x8x8x8xf32>
}

// -----

// Anything but hd layers in the training function.
func.func @foreign(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = hd.relu %x : tensor<16x8xf32>
  // expected-error @+1 {{is not an hd layer; --layerwise-parallelize takes graphs of hd layers only}}
  %c = "test.other"(%r) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}

// -----

// One training function per module.
func.func @first(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = hd.relu %x : tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}
// expected-error @+1 {{--layerwise-parallelize handles one training function per module; 'first' has layers too}}
func.func @second(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %r = hd.relu %x : tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// A module without layers is left alone.
func.func @empty() {
  return
}
