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
  ];
}

#endif // HD_DIALECT_HD_TRANSFORMS_PASSES_TD
