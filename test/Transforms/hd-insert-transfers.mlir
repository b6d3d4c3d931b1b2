// RUN: hd-opt %s -split-input-file --hd-insert-transfers --hd-verify-transfers | FileCheck %s
// Each transfer is named after its edge.
// RUN: hd-opt %s -split-input-file --hd-insert-transfers --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// LOC: #{{.*}} = loc("a -> b")
// Idempotent: a second run changes nothing.
// RUN: hd-opt %s -split-input-file --hd-insert-transfers -o %t.once.mlir
// RUN: hd-opt %s -split-input-file --hd-insert-transfers --hd-insert-transfers -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// A sample split feeding a channel split: each consumer task reads every
// sample, so it gathers the three samples the other devices computed.
// CHECK-LABEL: func.func @n_to_c
module attributes {hd.devices = 4 : i64} {
func.func @n_to_c(%x: tensor<4x2x4x4xf32>) -> tensor<4x4x4x4xf32> {
  %a = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false, parallel = #hd.pconfig<n = 4, c = 1, h = 1, w = 1>} : tensor<4x2x4x4xf32> -> tensor<4x4x4x4xf32> loc("a")
  // CHECK: %[[A:.*]] = hd.conv2d
  // CHECK: hd.grad_sync %[[A]] {bytes = 32 : i64, groups = [array<i64: 0, 1, 2, 3>]}
  // CHECK: %[[T:.*]] = hd.transfer %[[A]] {from = #hd.pconfig<n = 4, c = 1, h = 1, w = 1>, moves = [
  // CHECK-SAME: #hd.move<src = 1, dst = 0, lo = [1, 0, 0, 0], hi = [2, 4, 4, 4]>, #hd.move<src = 2, dst = 0, lo = [2, 0, 0, 0], hi = [3, 4, 4, 4]>, #hd.move<src = 3, dst = 0, lo = [3, 0, 0, 0], hi = [4, 4, 4, 4]>,
  // CHECK-SAME: #hd.move<src = 0, dst = 1, lo = [0, 0, 0, 0], hi = [1, 4, 4, 4]>, #hd.move<src = 2, dst = 1, lo = [2, 0, 0, 0], hi = [3, 4, 4, 4]>, #hd.move<src = 3, dst = 1, lo = [3, 0, 0, 0], hi = [4, 4, 4, 4]>,
  // CHECK-SAME: #hd.move<src = 0, dst = 2, lo = [0, 0, 0, 0], hi = [1, 4, 4, 4]>, #hd.move<src = 1, dst = 2, lo = [1, 0, 0, 0], hi = [2, 4, 4, 4]>, #hd.move<src = 3, dst = 2, lo = [3, 0, 0, 0], hi = [4, 4, 4, 4]>,
  // CHECK-SAME: #hd.move<src = 0, dst = 3, lo = [0, 0, 0, 0], hi = [1, 4, 4, 4]>, #hd.move<src = 1, dst = 3, lo = [1, 0, 0, 0], hi = [2, 4, 4, 4]>, #hd.move<src = 2, dst = 3, lo = [2, 0, 0, 0], hi = [3, 4, 4, 4]>]
  // CHECK-SAME: to = #hd.pconfig<n = 1, c = 4, h = 1, w = 1>} : tensor<4x4x4x4xf32>
  // CHECK: hd.conv2d %[[T]]
  %b = hd.conv2d %a {out_channels = 4 : i64, kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false, parallel = #hd.pconfig<n = 1, c = 4, h = 1, w = 1>} : tensor<4x4x4x4xf32> -> tensor<4x4x4x4xf32> loc("b")
  // The channel-split layer holds one shard per device: nothing to sync.
  // CHECK-NOT: hd.grad_sync
  return %b : tensor<4x4x4x4xf32>
}
}

// -----

// Height splits of a 3x3 convolution after another: each task needs one
// halo row from its neighbour.
// CHECK-LABEL: func.func @halo
module attributes {hd.devices = 2 : i64} {
func.func @halo(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 1, c = 1, h = 2, w = 1>} : tensor<2x3x8x8xf32>
  // CHECK: hd.transfer %{{.*}} {from = #hd.pconfig<n = 1, c = 1, h = 2, w = 1>, moves = [#hd.move<src = 1, dst = 0, lo = [0, 0, 4, 0], hi = [2, 3, 5, 8]>, #hd.move<src = 0, dst = 1, lo = [0, 0, 3, 0], hi = [2, 3, 4, 8]>], to = #hd.pconfig<n = 1, c = 1, h = 2, w = 1>}
  %b = hd.conv2d %a {out_channels = 3 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = false, parallel = #hd.pconfig<n = 1, c = 1, h = 2, w = 1>} : tensor<2x3x8x8xf32> -> tensor<2x3x8x8xf32>
  // Parameters replicated along h: one group of both tasks.
  // CHECK: hd.grad_sync %{{.*}} {bytes = 324 : i64, groups = [array<i64: 0, 1>]}
  return %b : tensor<2x3x8x8xf32>
}
}

// -----

// A concat of a sample-split and a channel-split input: the sample-split
// input is already where the concat's tasks read it; the channel-split one
// sends each task the other half of its channels.
// CHECK-LABEL: func.func @concat
module attributes {hd.devices = 2 : i64} {
func.func @concat(%x: tensor<2x4x4x4xf32>) -> tensor<2x8x4x4xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 2, c = 1, h = 1, w = 1>} : tensor<2x4x4x4xf32>
  %b = hd.relu %x {parallel = #hd.pconfig<n = 1, c = 2, h = 1, w = 1>} : tensor<2x4x4x4xf32>
  // CHECK: %[[A:.*]] = hd.relu
  // CHECK: %[[B:.*]] = hd.relu
  // CHECK: %[[T:.*]] = hd.transfer %[[B]] {from = #hd.pconfig<n = 1, c = 2, h = 1, w = 1>, moves = [#hd.move<src = 1, dst = 0, lo = [0, 2, 0, 0], hi = [1, 4, 4, 4]>, #hd.move<src = 0, dst = 1, lo = [1, 0, 0, 0], hi = [2, 2, 4, 4]>], to = #hd.pconfig<n = 2, c = 1, h = 1, w = 1>}
  // CHECK: hd.concat %[[A]], %[[T]]
  %c = hd.concat %a, %b {parallel = #hd.pconfig<n = 2, c = 1, h = 1, w = 1>} : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %c : tensor<2x8x4x4xf32>
}
}

// -----

// A fully-connected layer on 2 of 4 devices after a 4-way sample split:
// each of its tasks gathers every sample; devices 2 and 3 only send.
// CHECK-LABEL: func.func @fewer_devices
module attributes {hd.devices = 4 : i64} {
func.func @fewer_devices(%x: tensor<4x6xf32>) -> tensor<4x8xf32> {
  %a = hd.relu %x {parallel = #hd.pconfig<n = 4, c = 1>} : tensor<4x6xf32>
  // CHECK: hd.transfer %{{.*}} {from = #hd.pconfig<n = 4, c = 1>, moves = [
  // CHECK-SAME: #hd.move<src = 1, dst = 0, lo = [1, 0], hi = [2, 6]>, #hd.move<src = 2, dst = 0, lo = [2, 0], hi = [3, 6]>, #hd.move<src = 3, dst = 0, lo = [3, 0], hi = [4, 6]>,
  // CHECK-SAME: #hd.move<src = 0, dst = 1, lo = [0, 0], hi = [1, 6]>, #hd.move<src = 2, dst = 1, lo = [2, 0], hi = [3, 6]>, #hd.move<src = 3, dst = 1, lo = [3, 0], hi = [4, 6]>], to = #hd.pconfig<n = 1, c = 2>}
  %b = hd.linear %a {out_features = 8 : i64, bias = true, parallel = #hd.pconfig<n = 1, c = 2>} : tensor<4x6xf32> -> tensor<4x8xf32>
  // CHECK-NOT: hd.grad_sync
  return %b : tensor<4x8xf32>
}
}

// -----

// Mixed splits: parameters split along c in 2 shards, each replicated on
// the 2 sample halves: tasks (n, c) = 0:(0,0) 1:(0,1) 2:(1,0) 3:(1,1).
// Matching configurations need no transfer.
// CHECK-LABEL: func.func @replica_groups
module attributes {hd.devices = 4 : i64} {
func.func @replica_groups(%x: tensor<4x4x4x4xf32>) -> tensor<4x4x4x4xf32> {
  %a = hd.conv2d %x {out_channels = 4 : i64, kernel = array<i64: 1, 1>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true, parallel = #hd.pconfig<n = 2, c = 2, h = 1, w = 1>} : tensor<4x4x4x4xf32> -> tensor<4x4x4x4xf32>
  // CHECK: hd.grad_sync %{{.*}} {bytes = 40 : i64, groups = [array<i64: 0, 2>, array<i64: 1, 3>]}
  // CHECK-NOT: hd.transfer
  %b = hd.relu %a {parallel = #hd.pconfig<n = 2, c = 2, h = 1, w = 1>} : tensor<4x4x4x4xf32>
  return %b : tensor<4x4x4x4xf32>
}
}

// -----

// A gradient shard is whole channels: batch norm's 3 channels (2 parameters
// each) split in 2 give shards of 2 and 1 channels; the largest is 16 bytes.
// CHECK-LABEL: func.func @shard_bytes
module attributes {hd.devices = 4 : i64} {
func.func @shard_bytes(%x: tensor<4x3x2x2xf32>) -> tensor<4x3x2x2xf32> {
  // CHECK: hd.grad_sync %{{.*}} {bytes = 16 : i64, groups = [array<i64: 0, 2>, array<i64: 1, 3>]}
  %a = hd.batchnorm %x {epsilon = 1.0e-5 : f64, momentum = 0.9 : f64, parallel = #hd.pconfig<n = 2, c = 2, h = 1, w = 1>} : tensor<4x3x2x2xf32>
  return %a : tensor<4x3x2x2xf32>
}
}
