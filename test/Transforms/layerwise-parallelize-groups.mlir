// A grouped convolution's channel splits keep groups whole: on 4 devices
// its candidates and baselines use c = 1 or c dividing its 6 groups.
// RUN: hd-opt %s --layerwise-parallelize="devices=4 machine=p100-cluster strategy=model" | FileCheck %s --check-prefix=MODEL
// MODEL: hd.conv2d {{.*}}groups = 6 : i64{{.*}}parallel = #hd.pconfig<n = 1, c = 2, h = 1, w = 1>
// RUN: hd-opt %s --layerwise-parallelize="devices=4 machine=p100-cluster" --hd-insert-transfers --hd-verify-transfers -o /dev/null
module {
  func.func @grouped(%x: tensor<8x12x8x8xf32>) -> tensor<8x12x8x8xf32> {
    %c = hd.conv2d %x {out_channels = 12 : i64, kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, groups = 6 : i64, bias = false} : tensor<8x12x8x8xf32> -> tensor<8x12x8x8xf32>
    return %c : tensor<8x12x8x8xf32>
  }
}
