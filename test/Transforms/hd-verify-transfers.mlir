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

// A plan that misses a box: the element check, apart from the planner,
// names the first element that never arrives.
module attributes {hd.devices = 2 : i64} {
func.func @incomplete(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32>
  // expected-error @+1 {{moves the wrong elements: element (0, 2) of task 1's input box arrives 0 times, not 1}}
  %t = hd.transfer %a {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 2>, moves = [#hd.move<src = 1, dst = 0, lo = [1, 0], hi = [2, 2]>]} : tensor<2x4xf32>
  %b = hd.relu %t {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}
}

// -----

// Elements sent from a device that does not hold them.
module attributes {hd.devices = 2 : i64} {
func.func @wrong_source(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32>
  // expected-error @+1 {{moves the wrong elements: the move from device 0 to 1 of (1, 2) to (2, 4) sends element (1, 2), which device 1 holds}}
  %t = hd.transfer %a {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 2>, moves = [#hd.move<src = 1, dst = 0, lo = [1, 0], hi = [2, 2]>, #hd.move<src = 0, dst = 1, lo = [1, 2], hi = [2, 4]>]} : tensor<2x4xf32>
  %b = hd.relu %t {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}
}

// -----

// An element sent twice.
module attributes {hd.devices = 2 : i64} {
func.func @twice(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32>
  // expected-error @+1 {{moves the wrong elements: element (0, 3) of task 1's input box arrives 2 times, not 1}}
  %t = hd.transfer %a {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 2>, moves = [#hd.move<src = 1, dst = 0, lo = [1, 0], hi = [2, 2]>, #hd.move<src = 0, dst = 1, lo = [0, 2], hi = [1, 4]>, #hd.move<src = 0, dst = 1, lo = [0, 3], hi = [1, 4]>]} : tensor<2x4xf32>
  %b = hd.relu %t {parallel = #hd.pconfig<n = 1, c = 2>} : tensor<2x4xf32>
  return %b : tensor<2x4xf32>
}
}

// -----

// A plan that delivers exactly the right elements, in other messages than
// the planner's: correct, but not the plan the lowering was checked with.
module attributes {hd.devices = 2 : i64} {
func.func @other_messages(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1>} : tensor<2x4xf32>
  // expected-error @+1 {{has a plan that differs from the boxes the consumer reads}}
  %t = hd.transfer %a {from = #hd.pconfig<n = 2, c = 1>, to = #hd.pconfig<n = 1, c = 2>, moves = [#hd.move<src = 1, dst = 0, lo = [1, 0], hi = [2, 2]>, #hd.move<src = 0, dst = 1, lo = [0, 2], hi = [1, 3]>, #hd.move<src = 0, dst = 1, lo = [0, 3], hi = [1, 4]>]} : tensor<2x4xf32>
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
