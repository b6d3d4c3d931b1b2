// Each strategy annotates every layer, and the module gets hd.devices.

// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=data" | FileCheck %s --check-prefix=DATA
// DATA: module attributes {hd.devices = 4 : i64
// DATA: hd.conv2d {{.*}}parallel = #hd.pconfig<n = 4, c = 1, h = 1, w = 1>
// DATA: hd.relu {{.*}}parallel = #hd.pconfig<n = 4, c = 1, h = 1, w = 1>
// DATA: hd.linear {{.*}}parallel = #hd.pconfig<n = 4, c = 1>
// DATA: hd.softmax_cross_entropy {{.*}}parallel = #hd.pconfig<n = 4, c = 1>

// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=model" | FileCheck %s --check-prefix=MODEL
// MODEL: hd.conv2d {{.*}}parallel = #hd.pconfig<n = 1, c = 4, h = 1, w = 1>
// Uneven splits are fine: 10 classes in 4 parts are 3 + 3 + 2 + 2.
// MODEL: hd.linear {{.*}}parallel = #hd.pconfig<n = 1, c = 4>
// MODEL: hd.softmax_cross_entropy {{.*}}parallel = #hd.pconfig<n = 1, c = 4>

// Strategy owt is data parallel up to the first fully-connected layer, model
// parallel after it.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=owt" | FileCheck %s --check-prefix=OWT
// OWT: hd.flatten {{.*}}parallel = #hd.pconfig<n = 4, c = 1>
// OWT: hd.linear {{.*}}parallel = #hd.pconfig<n = 1, c = 4>
// OWT: hd.softmax_cross_entropy {{.*}}parallel = #hd.pconfig<n = 1, c = 4>

// The search finds the same optimum as brute force (on 2 devices, where
// brute force has 5^6 * 3^3 combinations), and is never slower than a
// baseline.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=p100-cluster report=%t.lw2.json" -o %t.lw2.mlir
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=p100-cluster strategy=exhaustive report=%t.ex2.json" -o %t.ex2.mlir
// RUN: diff %t.lw2.mlir %t.ex2.mlir
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster report=%t.lw.json" -o %t.lw.mlir
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=data report=%t.data.json" -o /dev/null
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=model report=%t.model.json" -o /dev/null
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=owt report=%t.owt.json" -o /dev/null
// RUN: %python %S/Inputs/compare_reports.py %t.lw2.json %t.ex2.json %t.lw.json %t.data.json %t.model.json %t.owt.json | FileCheck %s --check-prefix=COMPARE
// COMPARE: layerwise == exhaustive
// COMPARE: layerwise <= data
// COMPARE: layerwise <= model
// COMPARE: layerwise <= owt

// Every layer gets a configuration, and the report has every field.
// RUN: FileCheck %s --input-file=%t.lw.mlir --check-prefix=LW
// LW: module attributes {hd.devices = 4 : i64
// LW-COUNT-9: parallel = #hd.pconfig
// RUN: FileCheck %s --input-file=%t.lw.json --check-prefix=REPORT
// REPORT: "batch": 16,
// REPORT: "capacity_bytes": 15461882265,
// REPORT: "comm_bytes":
// REPORT: "compute_ms":
// REPORT: "devices": 4,
// REPORT: "fits": true,
// REPORT: "images_per_s":
// REPORT: "layers": [
// REPORT: "compute_ms":
// REPORT: "config": {
// REPORT: "in_transfer_ms":
// REPORT: "mem_bytes":
// REPORT: "name": "conv1",
// REPORT: "op": "conv2d",
// REPORT: "runner_up": {
// REPORT: "extra_ms":
// REPORT: "sync_ms":
// REPORT: "tasks":
// REPORT: "time_source": "analytic"
// REPORT: "machine": "p100-cluster",
// REPORT: "model": "small",
// REPORT: "model_hash": "{{[0-9a-f]+}}",
// REPORT: "peak_mem_bytes":
// REPORT: "predicted_ms":
// REPORT: "search": {
// REPORT: "exact": true,
// REPORT: "search_ms":
// REPORT: "strategy": "layerwise",
// REPORT: "sync_ms":
// REPORT: "transfer_ms":

// The human table goes to stderr.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster print=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TABLE
// TABLE: layer op config tasks compute ms transfer sync ms mem MiB
// TABLE: conv1 conv2d n=
// TABLE: loss softmax_cross_entropy n=
// TABLE: small on 4 x p100-cluster in fp32, strategy layerwise: {{[0-9.]+}} ms per iteration {{.*}} peak {{[0-9.]+}} MiB per device of 14745.6 MiB, search

// A Graphviz picture, each layer coloured by its split.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=owt dot=%t.dot" -o /dev/null
// RUN: FileCheck %s --input-file=%t.dot --check-prefix=DOT
// DOT: digraph strategy {
// DOT: l0 [label="conv1\nconv2d n=4 c=1 h=1 w=1", fillcolor="#9ecae1"];
// DOT: l7 [label="fc\nlinear n=1 c=4", fillcolor="#fdae6b"];
// DOT: l0 -> l1;
// DOT: l4 -> l5;

// Saved strategies re-import: the same IR as the search, no search.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster import=%t.lw.json report=%t.imp.json" -o %t.imp.mlir
// RUN: diff %t.lw.mlir %t.imp.mlir
// RUN: FileCheck %s --input-file=%t.imp.json --check-prefix=IMPORTED
// IMPORTED: "strategy": "imported"

// 6 and 12 devices: degrees 3, 6 and 12 are candidates.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=6 machine=p100-cluster strategy=data" | FileCheck %s --check-prefix=SIX
// A batch of 16 in 6 uneven parts: 3 + 3 + 3 + 3 + 2 + 2.
// SIX: module attributes {hd.devices = 6 : i64
// SIX: hd.conv2d {{.*}}parallel = #hd.pconfig<n = 6, c = 1, h = 1, w = 1>
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=12 machine=p100-cluster report=%t.12.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.12.json --check-prefix=TWELVE
// TWELVE: "devices": 12,
// TWELVE: "exact": true

// The default machine is this host's CPU processes (4), the default device
// count all of the machine's devices.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: module attributes {hd.devices = 4 : i64
