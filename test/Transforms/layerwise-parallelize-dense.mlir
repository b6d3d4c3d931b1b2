// A graph that node, edge and leaf elimination cannot reduce to one node
// (DenseNet-style concatenations) is still solved exactly, by variable
// elimination over what remains. (The unit tests check variable elimination
// against brute force on dense random graphs.)

// RUN: hd-opt %S/Inputs/dense-block.mlir --layerwise-parallelize="devices=4 machine=p100-cluster report=%t.json" -o %t.mlir
// RUN: FileCheck %s --input-file=%t.json
// CHECK: "search": {
// CHECK: "exact": true,
// CHECK: "largest_factor": {{[1-9][0-9]*}},
// CHECK: "remaining_nodes": 8
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// IR-COUNT-13: parallel = #hd.pconfig

// Brute force refuses it, and says why.
// RUN: not hd-opt %S/Inputs/dense-block.mlir --layerwise-parallelize="devices=2 machine=p100-cluster strategy=exhaustive" 2>&1 | FileCheck %s --check-prefix=BRUTE
// BRUTE: error: strategy=exhaustive would try 158203125 combinations (13 layers), above the limit of 10000000
