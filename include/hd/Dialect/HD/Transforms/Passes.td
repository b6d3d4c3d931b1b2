//===- Passes.td - hd transformation passes ----------------*- tablegen -*-===//

#ifndef HD_DIALECT_HD_TRANSFORMS_PASSES_TD
#define HD_DIALECT_HD_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LayerSummaryPass : Pass<"hd-layer-summary", "mlir::ModuleOp"> {
  let summary = "Print a per-layer table: name, op, output shape, "
                "parameters, forward FLOPs";
  let description = [{
    Prints one row per layer of every function to standard output, in program
    order, followed by the totals:

    ```
    layer                       op        output         params   fwd FLOPs
    /features/features.0/Conv   conv2d    32x64x55x55     23296        4.5G
    ...
    total: 23 layers, 61100840 parameters, 45.8G FLOPs forward
    ```

    The layer name is the op's name location (the ONNX node name after
    import). Parameters and FLOPs come from `LayerOpInterface`, the same
    numbers the cost model uses. The IR is left unchanged.
  }];
}

def LayerwiseParallelizePass
    : Pass<"layerwise-parallelize", "mlir::ModuleOp"> {
  let summary = "Choose every layer's parallelization configuration";
  let description = [{
    Gives every hd layer a `parallel` attribute (`#hd.pconfig`) and the module
    an `hd.devices` attribute, so that one training iteration on `devices`
    devices of `machine` is as fast as the cost model predicts possible.

    Strategies:
    - `layerwise` (default): the exact search of Jia et al. (node, edge and
      leaf elimination, then enumeration or variable elimination of what
      remains) over every configuration whose degrees' product divides the
      device count, minimizing compute + transfer + gradient sync time;
    - `data`: every layer split along n over all devices;
    - `model`: every layer split along c over all devices (the channel
      dimension carries the parameters);
    - `owt`: data for the convolutional part, model from the first
      fully-connected layer on ("one weird trick");
    - `exhaustive`: brute force over all combinations, refused with an error
      above 10^7 of them.

    Mixed precision: `precision=bf16` (or `fp16`) computes convolutions and
    matrix products in that type, and every other layer by autocast's rules
    (normalization statistics and the loss in fp32, the rest in its inputs'
    type). Each layer gets its `hd.compute_type` and the module its
    `hd.precision`; a layer that already has a compute type keeps it (a
    convolution kept in f32). Master weights and momentum stay fp32;
    gradients are summed in fp32 unless `grad_sync=bf16`. The cost model
    prices every layer at the machine's rate for its type (refused where the
    machine states none) and every activation, transfer and gradient at its
    type's size.

    A layer that already has a `parallel` attribute is pinned: every strategy
    keeps it and the search optimizes the rest around it. `import=R.json`
    applies a strategy saved in a report instead of choosing one; the
    report's model hash must match this module's.

    Reports: `report=R.json` writes the JSON report (docs/design.md), which
    also records each layer's runner-up configuration and its extra cost;
    `print=true` prints a per-layer table to stderr; `dot=F.dot` writes a
    Graphviz picture of the strategy.

    Guarantees to the next pass: every hd layer carries a configuration whose
    task count is at most `hd.devices`, and `hd.devices` is set.
  }];
  let options = [
    Option<"devices", "devices", "int64_t", "-1",
           "Number of devices (default: all devices of the machine)">,
    Option<"machine", "machine", "std::string", "\"cpu\"",
           "Built-in machine (cpu, p100-cluster, h200-node) or a machine "
           "JSON file">,
    Option<"strategy", "strategy", "std::string", "\"layerwise\"",
           "layerwise, data, model, owt or exhaustive">,
    Option<"report", "report", "std::string", "\"\"",
           "Write the JSON report to this file">,
    Option<"importPath", "import", "std::string", "\"\"",
           "Apply the strategy saved in this report instead of choosing">,
    Option<"print", "print", "bool", "false",
           "Print the per-layer strategy table to stderr">,
    Option<"dot", "dot", "std::string", "\"\"",
           "Write a Graphviz DOT picture of the strategy to this file">,
    Option<"profile", "profile", "std::string", "\"\"",
           "Profile database of measured layer times (overrides the "
           "machine's)">,
    Option<"precision", "precision", "std::string", "\"\"",
           "fp32, bf16 or fp16: the low precision of convolutions and "
           "matrix products (default: the module's hd.precision, else fp32)">,
    Option<"gradSync", "grad_sync", "std::string", "\"\"",
           "fp32 or bf16: the type gradients are summed in (default: the "
           "module's hd.grad_sync_type, else fp32)">,
  ];
}

def InsertTransfersPass : Pass<"hd-insert-transfers", "mlir::ModuleOp"> {
  let summary = "Make every data movement and gradient sync explicit";
  let description = [{
    For every edge whose consumer's tasks do not read exactly the tiles their
    own devices hold (different configurations, halos of h/w splits,
    replicated inputs of channel splits, layers on fewer devices than their
    neighbours), inserts an `hd.transfer` before the consumer with the static
    plan of every box one task sends another, computed from the exact boxes
    of docs/design.md. For every layer whose parameters are replicated
    (split along n, h or w), inserts an `hd.grad_sync` of its replica groups
    after it.

    Requires `--layerwise-parallelize` (or hand-written configurations) to
    have run. Idempotent: operands that already come through a transfer and
    layers that already have a sync are left alone.

    Guarantees to the next pass what `--hd-verify-transfers` checks.
  }];
}

def VerifyTransfersPass : Pass<"hd-verify-transfers", "mlir::ModuleOp"> {
  let summary = "Check that a program is ready for lowering";
  let description = [{
    The contract lowering relies on, checked before it starts:
    - the module has `hd.devices` and every layer a configuration;
    - every edge that needs data from other devices goes through an
      `hd.transfer` whose `from` and `to` are the producer's and consumer's
      configurations and whose plan is exactly the boxes that must move;
    - element by element, apart from the planner's code (where the boxes
      hold at most 2^22 elements): each consumer task receives every element
      of its input box that its own device does not hold, once, from the
      device that holds it, and nothing else; without a transfer, each
      task's box is its own device's tile;
    - every layer with replicated parameters has one `hd.grad_sync` with its
      replica groups.
    Emits an error on the offending op otherwise; changes nothing.
  }];
}

#endif // HD_DIALECT_HD_TRANSFORMS_PASSES_TD
