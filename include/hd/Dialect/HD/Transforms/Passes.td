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

#endif // HD_DIALECT_HD_TRANSFORMS_PASSES_TD
