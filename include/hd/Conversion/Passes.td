//===- Passes.td - hd conversion passes --------------------*- tablegen -*-===//
//
// Passes that lower the hd dialect to something else, one folder each under
// lib/Conversion: HDToRuntime, calls of the hdrt runtime.
//
//===----------------------------------------------------------------------===//

#ifndef HD_CONVERSION_PASSES_TD
#define HD_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerToRuntimePass : Pass<"hd-lower-to-runtime", "mlir::ModuleOp"> {
  let summary = "Lower a partitioned training graph to calls of the hdrt "
                "runtime";
  let description = [{
    Replaces the training function by `func.func @main(i32, !llvm.ptr) ->
    i32`, one SPMD program that every MPI rank (device) runs, made of calls
    of the `hdrt_*` C ABI. The functions are declared from the runtime's
    table (runtime/include/hdrt/Abi.def). Shapes, configurations, transfer
    plans and replica groups become constant globals, and each layer's
    attributes its kind's typed descriptor: a constant of the runtime's
    struct (runtime/include/hdrt/LayerKinds.def), filled from the op's
    runtime descriptor by field name. An op the runtime has no kind for, or
    whose attributes and the descriptor's fields disagree, is an error.

    The program defines the network once (`hdrt_define_layer` per layer,
    `hdrt_define_edge` per operand, `hdrt_define_grad_sync` per synced
    layer), then runs the training step in a loop from `hdrt_first_step()`
    to `hdrt_last_step()`:
    1. `hdrt_step_begin` (this step's images and labels);
    2. in program order: `hdrt_transfer_forward` of each operand that
       comes through an `hd.transfer`, then `hdrt_forward` of the layer;
       the last layer computes the softmax cross-entropy over the global
       batch;
    3. in reverse order: `hdrt_backward` of the layer, the reversed
       transfers of its operands (`hdrt_transfer_backward`, which sum where
       input boxes overlap), and `hdrt_grad_sync` of its parameter
       gradients over their replica groups;
    4. `hdrt_sgd_update` of every layer with parameters (SGD with momentum
       and weight decay);
    5. `hdrt_step_end` (the global loss, the step line, checkpoints).

    Requires the contract of `--hd-verify-transfers`, which it checks
    first; the training function must take (images, labels) and end with
    `hd.softmax_cross_entropy`. The result uses the func, arith, scf and
    llvm dialects; `hd-translate --hd-to-executable` takes it from there.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::func::FuncDialect"];
}

#endif // HD_CONVERSION_PASSES_TD
