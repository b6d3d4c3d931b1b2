// Device memory against the machine's capacity (mem_gib less
// mem_reserve_gib, a tenth of mem_gib by default). The search returns the
// fastest strategy that fits; when none does, it fails, naming the least
// memory any strategy needs and the layer that takes most of it. A
// baseline is applied as asked, with a warning when it does not fit.

// 10 MiB per device: small-cnn's fastest strategy on 2 devices (1 device,
// 12.4 MiB) does not fit; the search, and brute force, keep to data
// parallelism (6.3 MiB), the fastest that does.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=%S/Inputs/ten-mib-machine.json report=%t.json print=true" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=BINDS --implicit-check-not=warning
// BINDS: small on 2 x ten-mib in fp32, strategy layerwise: {{[0-9.]+}} ms per iteration {{.*}} peak 6.3 MiB per device of 10.0 MiB, search
// BINDS-NEXT: note: the fastest strategy does not fit the devices' memory; this is the fastest that does
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT
// REPORT: "capacity_bytes": 10485760,
// REPORT: "fits": true,
// Data parallelism's peak, by the runtime's allocation (docs/
// CostModelAndSearch.md, "Memory per device"), 8 of the 16 images a task,
// f32: each layer's output tile and its gradient (8 bytes an element):
// conv1 and relu1 8x32x32x32, pool1, conv2 and the add 8x32x16x16, gap and
// flatten 8x32, fc 8x10: 5,771,904; max pooling's byte per output element:
// 65,536; parameters, gradients and momentum (12 bytes each): conv1 896,
// conv2 9,248, fc 330: 125,688; the images' box 8x3x32x32 and the labels'
// 8, once: 98,336; pool1's gradient copy for each of its two readers
// (conv2 and the add read its tile in place): 2 x 262,144. In all
// 6,585,752.
// REPORT: "peak_mem_bytes": 6585752,
// REPORT: "capacity_binds": true,
// REPORT: "exact": true,
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=%S/Inputs/ten-mib-machine.json strategy=exhaustive print=true" -o %t.exhaustive.mlir 2>&1 | FileCheck %s --check-prefix=BRUTE
// BRUTE: small on 2 x ten-mib in fp32, strategy exhaustive: {{[0-9.]+}} ms per iteration {{.*}} peak 6.3 MiB per device of 10.0 MiB
// BRUTE-NEXT: note: the fastest strategy does not fit the devices' memory; this is the fastest that does
// The search's strategy is brute force's, layer by layer.
// RUN: grep -o "parallel = [^}]*" %t.mlir > %t.layerwise.configs
// RUN: grep -o "parallel = [^}]*" %t.exhaustive.mlir | diff - %t.layerwise.configs

// With room, the fastest strategy (the whole model on one device).
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=p100-cluster report=%t.room.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROOM --allow-empty
// ROOM-NOT: warning
// RUN: FileCheck %s --input-file=%t.room.json --check-prefix=ROOMREPORT
// One device holds all 16 images: twice the above but the parameters'
// 125,688 once: 13,045,816.
// ROOMREPORT: "peak_mem_bytes": 13045816,
// ROOMREPORT: "capacity_binds": false,

// Under 1 MiB per device nothing fits: an error, and no output.
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=%S/Inputs/small-memory-machine.json" -o %t.none.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not test -e %t.none.mlir
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=%S/Inputs/small-memory-machine.json strategy=exhaustive" -o %t.none.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: no strategy on 2 devices of 'tiny-memory' fits the 943.7 KiB each may hold (mem_gib less mem_reserve_gib): the least any strategy needs is 6.3 MiB per device, of which layer 'conv1' (conv2d as n=2 c=1 h=1 w=1) takes 2.1 MiB; use more devices, fewer images per device, or a machine with more memory

// A baseline that does not fit is still written, with a warning that says
// by how much, and the report and the table say it does not fit.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=%S/Inputs/small-memory-machine.json strategy=data report=%t.data.json print=true" -o %t.data.mlir 2>&1 | FileCheck %s --check-prefix=BASELINE
// BASELINE: warning: the data strategy needs {{[0-9.]+}} GiB on its fullest device, above the 0.00 GiB each device of '{{.*}}small-memory-machine.json' offers (mem_gib less mem_reserve_gib): it would run out of memory; use fewer images per device, or more devices
// BASELINE: small on 4 x tiny-memory in fp32, strategy data: {{.*}} of 0.9 MiB (does not fit), search
// RUN: FileCheck %s --input-file=%t.data.json --check-prefix=BASELINEREPORT
// BASELINEREPORT: "capacity_bytes": 966367,
// BASELINEREPORT: "fits": false,
// RUN: FileCheck %s --input-file=%t.data.mlir --check-prefix=IR
// IR: hd.devices = 4

// A reserve must leave some memory.
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="machine=%S/Inputs/no-room-machine.json" 2>&1 | FileCheck %s --check-prefix=RESERVE
// RESERVE: error: {{.*}}no-room-machine.json: field 'mem_reserve_gib' (16.00) must be below mem_gib (16.00)
