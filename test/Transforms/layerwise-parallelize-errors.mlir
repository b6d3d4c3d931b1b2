// Bad options and files: a clear error and a non-zero exit, never a crash.

// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: devices=0: the device count must be at least 1

// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=17 machine=p100-cluster" 2>&1 | FileCheck %s --check-prefix=TOOMANY
// TOOMANY: error: devices=17 exceeds the 16 devices of machine 'p100-cluster' (4 nodes x 4)

// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="strategy=fastest" 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: error: unknown strategy 'fastest'; use layerwise, data, model, owt or exhaustive

// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="machine=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=MACHINE
// MACHINE: error: machine '{{.*}}missing.json' is neither a built-in (cpu, p100-cluster, h200-node) nor a readable file

// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="machine=%S/Inputs/misspelled-machine.json" 2>&1 | FileCheck %s --check-prefix=FIELD
// FIELD: error: {{.*}}misspelled-machine.json: field 'peak_gflop' is unknown; did you mean 'peak_gflops'?

// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=exhaustive" 2>&1 | FileCheck %s --check-prefix=EXHAUSTIVE
// EXHAUSTIVE: error: strategy=exhaustive would try 984150000 combinations (9 layers), above the limit of 10000000; use strategy=layerwise, which is exact and fast

// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="profile=%t.missing-profile.json" 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE: error: {{.*}}missing-profile.json: cannot read the profile database

// A report that cannot be written is an error, not a silent loss.
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="report=%t.no-such-dir/r.json" 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: error: cannot write the report '{{.*}}no-such-dir/r.json'

// Strategies apply only to their model and device count.
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster report=%t.small.json" -o /dev/null
// RUN: not hd-opt %S/Inputs/other-model.mlir --layerwise-parallelize="devices=4 machine=p100-cluster import=%t.small.json" 2>&1 | FileCheck %s --check-prefix=HASH
// HASH: error: strategy '{{.*}}small.json' was made for model 'small' (hash {{[0-9a-f]+}}); this module is 'other' (hash {{[0-9a-f]+}}): re-run the search for this model
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=2 machine=p100-cluster import=%t.small.json" 2>&1 | FileCheck %s --check-prefix=DEVICES
// DEVICES: error: strategy '{{.*}}small.json' is for 4 devices, not 2
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="import=%t.none.json" 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: {{.*}}none.json: cannot read the strategy

// An edited strategy with a degree the layer cannot take: a diagnostic on the
// layer, not a crash.
// RUN: sed -e '0,/"n": [0-9]*/s//"n": 64/' %t.small.json > %t.edited.json
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster import=%t.edited.json" 2>&1 | FileCheck %s --check-prefix=EDITED
// EDITED: error: loc("conv1"): the imported configuration n=64 c=1 h=1 w=1 has 64 tasks but only 4 devices are available
// RUN: sed -e '0,/"n": [0-9]*/s//"n": 0/' %t.small.json > %t.zero.json
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster import=%t.zero.json" 2>&1 | FileCheck %s --check-prefix=ZERODEG
// ZERODEG: error: {{.*}}zero.json: layer '{{.*}}': degree n=0 must be at least 1

// A config with keys the strategy format does not have.
// RUN: sed -e '0,/"n": [0-9]*/s//"N": 2/' %t.small.json > %t.keys.json
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster import=%t.keys.json" 2>&1 | FileCheck %s --check-prefix=KEYS
// KEYS: error: {{.*}}keys.json: layer 'conv1': unknown config key 'N' (use n, c, h, w)

// A pinned layer and an imported strategy that disagree.
// RUN: sed -e 's/out_features = 10 : i64, bias = true}/out_features = 10 : i64, bias = true, parallel = #hd.pconfig<n = 3, c = 1>}/' %S/Inputs/small-cnn.mlir > %t.pinned.mlir
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="devices=4 machine=p100-cluster strategy=data report=%t.data.json" -o /dev/null
// RUN: not hd-opt %t.pinned.mlir --layerwise-parallelize="devices=4 machine=p100-cluster import=%t.data.json" 2>&1 | FileCheck %s --check-prefix=PINNED
// PINNED: error: loc("fc"): 'hd.linear' op is pinned to n=3 c=1 but the imported strategy says n=4 c=1; remove one of the two

// Layers without unique names cannot take an imported strategy.
// RUN: sed -e 's/loc("relu1")/loc("conv1")/' %S/Inputs/small-cnn.mlir > %t.twice.mlir
// RUN: not hd-opt %t.twice.mlir --layerwise-parallelize="devices=4 machine=p100-cluster import=%t.data.json" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: loc("conv1"): layer name 'conv1' is not unique; strategies match layers by name (give each layer a loc("name"))

// Precisions: a name hd does not know, a machine without the type's rate,
// gradient sums in a type the program does not compute in, a module already
// planned in another precision, and a layer kept in a type its kind may not
// compute in.
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="precision=fp8" 2>&1 | FileCheck %s --check-prefix=PRECISION
// PRECISION: error: precision=fp8: unknown precision; use fp32, bf16 or fp16
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="machine=p100-cluster devices=4 precision=bf16" 2>&1 | FileCheck %s --check-prefix=NORATE
// NORATE: error: precision=bf16: machine 'p100-cluster' has no bf16 rate (peak_gflops_bf16): its devices do not compute in bf16
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="precision=fp16" 2>&1 | FileCheck %s --check-prefix=CPUFP16
// CPUFP16: error: precision=fp16: machine 'cpu' has no fp16 rate (peak_gflops_fp16): its devices do not compute in fp16
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="grad_sync=bf16" 2>&1 | FileCheck %s --check-prefix=SYNCTYPE
// SYNCTYPE: error: grad_sync=bf16 needs precision=bf16 (not fp32)
// RUN: not hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="precision=bf16 grad_sync=fp16" 2>&1 | FileCheck %s --check-prefix=SYNCF16
// SYNCF16: error: grad_sync=fp16: gradients are summed in fp32 or bf16
// RUN: hd-opt %S/Inputs/small-cnn.mlir --layerwise-parallelize="precision=bf16" -o %t.bf16.mlir
// RUN: not hd-opt %t.bf16.mlir --layerwise-parallelize="precision=fp32" 2>&1 | FileCheck %s --check-prefix=REPLAN
// REPLAN: error: the module is in bf16 ('hd.precision'); it cannot be planned in fp32
// RUN: sed -e 's/hd.relu %c1 :/hd.relu %c1 {hd.compute_type = bf16} :/' %S/Inputs/small-cnn.mlir > %t.kept.mlir
// RUN: not hd-opt %t.kept.mlir --layerwise-parallelize 2>&1 | FileCheck %s --check-prefix=KEPTF32
// KEPTF32: error: loc("relu1"): 'hd.compute_type' is bf16 in a module without 'hd.precision'
// RUN: sed -e 's/hd.relu %c1 :/hd.relu %c1 {hd.compute_type = f32} :/' %S/Inputs/small-cnn.mlir > %t.kept32.mlir
// RUN: not hd-opt %t.kept32.mlir --layerwise-parallelize="precision=bf16" 2>&1 | FileCheck %s --check-prefix=KEPTBAD
// KEPTBAD: error: loc("relu1"): 'hd.compute_type' computes in f32 but this layer computes in the type of its inputs (bf16)

// The runtime trains fp32 programs only so far: lowering a bf16 one says so.
// RUN: not hd-opt %t.bf16.mlir --hd-insert-transfers --hd-lower-to-runtime 2>&1 | FileCheck %s --check-prefix=LOWER
// LOWER: error: --hd-lower-to-runtime: the module is planned in bf16 ('hd.precision'), and the runtime trains in fp32 only so far; plan it with precision=fp32 to run it
// LOWER-NOT: see current operation
