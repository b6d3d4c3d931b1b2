// Mixed precision: precision=bf16 gives every layer autocast's compute type
// (convolutions and matrix products in bf16, the loss in f32, the rest in
// their inputs' type) and the module hd.precision; the report and the table
// say so, and the cost model prices the program as bf16.

// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=h200-node precision=bf16 report=%t.bf16.json print=true" 2>%t.table | FileCheck %s
// CHECK: module attributes {{{.*}}hd.precision = bf16
// CHECK: hd.conv2d {{.*}}hd.compute_type = bf16
// CHECK: hd.relu {{.*}}hd.compute_type = bf16
// CHECK: hd.pool2d max {{.*}}hd.compute_type = bf16
// CHECK: hd.add {{.*}}hd.compute_type = bf16
// CHECK: hd.linear {{.*}}hd.compute_type = bf16
// CHECK: hd.softmax_cross_entropy {{.*}}hd.compute_type = f32
// RUN: FileCheck %s --check-prefix=TABLE < %t.table
// TABLE: conv1 {{ *}}conv2d bf16
// TABLE: loss {{ *}}softmax_cross_entropy f32
// TABLE: small on 4 x h200-node in bf16, strategy layerwise:

// The fp32 plan of the same model: no precision attributes, and a report
// that says fp32. The bf16 plan moves half the bytes per element and
// computes dense layers at the bf16 rate: its predicted step is below
// fp32's; under the same strategy (owt, which transfers activations into
// the classifier) so are its memory and every transfer's bytes.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=h200-node report=%t.fp32.json" | FileCheck %s --check-prefix=FP32
// FP32-NOT: hd.precision
// FP32-NOT: hd.compute_type
// RUN: %python %S/Inputs/compare_precision.py %t.fp32.json %t.bf16.json
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=h200-node strategy=owt report=%t.fp32-owt.json" -o /dev/null
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=h200-node strategy=owt precision=bf16 report=%t.bf16-owt.json" -o /dev/null
// RUN: %python %S/Inputs/compare_precision.py --same-strategy %t.fp32-owt.json %t.bf16-owt.json

// Summing gradients in bf16 halves the gradient sync of the same strategy,
// and the hd.grad_sync ops' shards.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=h200-node strategy=data precision=bf16 report=%t.bf16-data.json" -o /dev/null
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=h200-node strategy=data precision=bf16 grad_sync=bf16 report=%t.bf16-sync.json" --hd-insert-transfers | FileCheck %s --check-prefix=SYNC
// SYNC: module attributes {{{.*}}hd.grad_sync_type = bf16
// SYNC: %0 = hd.conv2d
// SYNC-NEXT: hd.grad_sync %0 {bytes = 1792 : i64
// RUN: %python %S/Inputs/compare_precision.py --sync-halved %t.bf16-data.json %t.bf16-sync.json

// A layer that already has a compute type keeps it: the first convolution
// kept in f32 writes f32, so the relu after it computes in f32 too.
// RUN: sed -e 's/bias = true} : tensor<16x3x32x32xf32>/bias = true, hd.compute_type = f32} : tensor<16x3x32x32xf32>/' %S/Inputs/small-cnn.mlir | hd-opt --layerwise-parallelize="devices=4 machine=h200-node precision=bf16" | FileCheck %s --check-prefix=KEPT
// KEPT: hd.conv2d {{.*}}hd.compute_type = f32
// KEPT: hd.relu {{.*}}hd.compute_type = f32
// KEPT: hd.conv2d {{.*}}hd.compute_type = bf16
// The residual add of conv2's bf16 and pool1's f32 computes in the wider f32.
// KEPT: hd.add {{.*}}hd.compute_type = f32

// A planned module keeps its precision when planned again without the
// option, and its IR round-trips through the verifier.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=h200-node precision=fp16" | hd-opt --layerwise-parallelize="devices=4 machine=h200-node" | FileCheck %s --check-prefix=AGAIN
// AGAIN: module attributes {{{.*}}hd.precision = f16
// AGAIN: hd.conv2d {{.*}}hd.compute_type = f16
