// Layers that carry a configuration are pinned: every strategy keeps them and
// the search optimizes the rest around them.

// RUN: hd-opt %s --layerwise-parallelize="devices=4 machine=p100-cluster" | FileCheck %s
// RUN: hd-opt %s --layerwise-parallelize="devices=4 machine=p100-cluster strategy=data" | FileCheck %s --check-prefix=DATA
// The report shows the pinned configurations too.
// RUN: hd-opt %s --layerwise-parallelize="devices=4 machine=p100-cluster print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TABLE

module {
  func.func @pinned(%x: tensor<64x3x64x64xf32>, %y: tensor<64xi32>) -> tensor<f32> {
    // An h/w split with halos, pinned.
    // CHECK: hd.conv2d {{.*}}parallel = #hd.pconfig<n = 1, c = 1, h = 2, w = 2>
    // DATA: hd.conv2d {{.*}}parallel = #hd.pconfig<n = 1, c = 1, h = 2, w = 2>
    %c = hd.conv2d %x {out_channels = 64 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true, parallel = #hd.pconfig<n = 1, c = 1, h = 2, w = 2>} : tensor<64x3x64x64xf32> -> tensor<64x64x64x64xf32>
    // CHECK: hd.relu {{.*}}parallel = #hd.pconfig
    // DATA: hd.relu {{.*}}parallel = #hd.pconfig<n = 4, c = 1, h = 1, w = 1>
    %r = hd.relu %c : tensor<64x64x64x64xf32>
    %g = hd.pool2d avg %r {global, kernel = array<i64: 64, 64>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>} : tensor<64x64x64x64xf32> -> tensor<64x64x1x1xf32>
    %f = hd.flatten %g : tensor<64x64x1x1xf32> -> tensor<64x64xf32>
    // A fully-connected layer on fewer devices than its neighbours, pinned.
    // CHECK: hd.linear {{.*}}parallel = #hd.pconfig<n = 1, c = 2>
    // DATA: hd.linear {{.*}}parallel = #hd.pconfig<n = 1, c = 2>
    %l = hd.linear %f {out_features = 1000 : i64, bias = true, parallel = #hd.pconfig<n = 1, c = 2>} : tensor<64x64xf32> -> tensor<64x1000xf32>
    %loss = hd.softmax_cross_entropy %l, %y : tensor<64x1000xf32>, tensor<64xi32> -> tensor<f32>
    return %loss : tensor<f32>
  }
}

// TABLE: conv2d n=1 c=1 h=2 w=2 4
// TABLE: linear n=1 c=2 2
