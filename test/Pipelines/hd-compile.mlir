// --hd-compile is the common path in one flag: the same program as running
// --layerwise-parallelize, --hd-insert-transfers and --hd-lower-to-runtime
// one after the other, with the first pass's options.
// RUN: hd-opt %s --hd-compile="devices=4 machine=p100-cluster strategy=owt report=%t.json" -o %t.pipeline.mlir
// RUN: hd-opt %s --layerwise-parallelize="devices=4 machine=p100-cluster strategy=owt" --hd-insert-transfers --hd-lower-to-runtime -o %t.passes.mlir
// RUN: diff %t.pipeline.mlir %t.passes.mlir
// RUN: FileCheck %s < %t.pipeline.mlir
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// CHECK: func.func @main(
// CHECK: call @hdrt_transfer_forward
// REPORT: "strategy": "owt"

// Errors of the first pass stop the pipeline, with its message.
// RUN: not hd-opt %s --hd-compile="devices=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: devices=0: the device count must be at least 1
// RUN: not hd-opt %s --hd-compile="strategy=fastest" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: error: unknown strategy 'fastest'; use layerwise, data, model, owt or exhaustive

module attributes {hd.model = "mlp"} {
  func.func @mlp(%x: tensor<8x16xf32>, %y: tensor<8xi32>) -> tensor<f32> {
    %0 = hd.linear %x {bias = true, out_features = 32 : i64} : tensor<8x16xf32> -> tensor<8x32xf32> loc("fc1")
    %1 = hd.relu %0 : tensor<8x32xf32> loc("relu")
    %2 = hd.linear %1 {bias = true, out_features = 4 : i64} : tensor<8x32xf32> -> tensor<8x4xf32> loc("fc2")
    %3 = hd.softmax_cross_entropy %2, %y : tensor<8x4xf32>, tensor<8xi32> -> tensor<f32> loc("loss")
    return %3 : tensor<f32>
  }
}
