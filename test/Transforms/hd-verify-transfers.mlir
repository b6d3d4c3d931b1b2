// RUN: hd-opt %s -split-input-file -verify-diagnostics --hd-verify-transfers

// An edge between different configurations without a transfer.
module attributes {hd.devices = 2 : i64} {
func.func @missing(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32>
  // expected-error @+1 {{reads operand #0 from 'relu@6' under another configuration, without an hd.transfer (run --hd-insert-transfers)}}
  %b = hd.relu %a {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}
}

// -----

// A transfer whose configurations are not its layers'.
module attributes {hd.devices = 2 : i64} {
func.func @stale(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32>
  // expected-error @+1 {{moves from #hd.pconfig<n = 1, c = 1> to #hd.pconfig<n = 1, c = 2> but 'relu@18' has #hd.pconfig<n = 2, c = 1> and its consumer #hd.pconfig<n = 1, c = 2>}}
  %t = hd.transfer %a {from = #hd.pconfig<n = 1, c = 1>, to = #hd.pconfig<n = 1, c = 2>, moves = []} : tensor<2x4xf32>
  %b = hd.relu %t {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}
}

// -----

// A plan that misses a box.
module attributes {hd.devices = 2 : i64} {
func.func @incomplete(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32>
  // expected-error @+1 {{has a plan that differs from the boxes the consumer reads}}
  %t = hd.transfer %a {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 2>, moves = [#hd.move<src = 1, dst = 0, lo = [1, 0], hi = [2, 2]>]} : tensor<2x4xf32>
  %b = hd.relu %t {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}
}

// -----

// Replicated parameters without their gradient sync.
module attributes {hd.devices = 2 : i64} {
func.func @unsynced(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{has replicated parameters and needs exactly one hd.grad_sync, found 0}}
  %a = hd.linear %x {out_features = 4 : i64, bias = true, parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32> -> tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}
}

// -----

// A sync over the wrong groups.
module attributes {hd.devices = 4 : i64} {
func.func @wrong_groups(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = hd.linear %x {out_features = 4 : i64, bias = true, parallel = #hd.pconfig<n = 2, c = 2>} : tensor<4x4xf32> -> tensor<4x4xf32>
  // expected-error @+1 {{groups differ from the replica groups of its layer, [array<i64: 0, 2>, array<i64: 1, 3>]}}
  hd.grad_sync %a {groups = [array<i64: 0, 1>, array<i64: 2, 3>], bytes = 40 : i64} : tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}
}

// -----

// Not configured yet.
module attributes {hd.devices = 2 : i64} {
func.func @unconfigured(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{has no configuration; --hd-verify-transfers needs every layer configured (run --layerwise-parallelize)}}
  %a = hd.relu %x : tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}
}

// -----

// expected-error @+1 {{--hd-verify-transfers needs a module with hd.devices: run --layerwise-parallelize first}}
module {
func.func @no_devices(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x : tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}
}

// -----

// A transfer of a graph input, and one feeding no layer.
module attributes {hd.devices = 2 : i64} {
func.func @stray(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{must move a layer's output (graph inputs are loaded where they are needed)}}
  %t = hd.transfer %x {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 2>, moves = []} : tensor<2x4xf32>
  %a = hd.relu %t {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>
  // expected-error @+1 {{must feed layers only, not func.return}}
  %u = hd.transfer %a {from = #hd.pconfig<n = 1, c = 2>, to = #hd.pconfig<n = 2, c = 1>, moves = []} : tensor<2x4xf32>
  return %u : tensor<2x4xf32>
}
}
