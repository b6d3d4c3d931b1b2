// Device memory against the machine's capacity (mem_gib less
// mem_reserve_gib, a tenth of mem_gib by default). The search does not yet
// keep a strategy within it, so a strategy that does not fit is still
// written, with a warning that says by how much, and the report and the
// table say it does not fit.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=%S/Inputs/small-memory-machine.json report=%t.json print=true" -o %t.mlir 2>&1 | FileCheck %s
// CHECK: warning: {{.*}}the layerwise strategy needs {{[0-9.]+}} GiB on its fullest device, above the 0.00 GiB each device of '{{.*}}small-memory-machine.json' offers (mem_gib less mem_reserve_gib): it would run out of memory; use fewer images per device, or more devices
// CHECK: small on 4 x tiny-memory, strategy layerwise: {{.*}} of 0.9 MiB (does not fit), search
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT
// REPORT: "capacity_bytes": 966367,
// REPORT: "fits": false,
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// IR: hd.devices = 4

// On a machine with room, no warning.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROOM --allow-empty
// ROOM-NOT: warning

// A reserve must leave some memory.
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="machine=%S/Inputs/no-room-machine.json" 2>&1 | FileCheck %s --check-prefix=RESERVE
// RESERVE: error: {{.*}}no-room-machine.json: field 'mem_reserve_gib' (16.00) must be below mem_gib (16.00)
