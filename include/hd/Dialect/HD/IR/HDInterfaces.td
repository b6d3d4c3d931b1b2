//===- HDInterfaces.td - what every hd layer tells the compiler -*- tablegen -*-===//

#ifndef HD_DIALECT_HD_IR_HDINTERFACES_TD
#define HD_DIALECT_HD_IR_HDINTERFACES_TD

include "mlir/IR/OpBase.td"

def HD_LayerOpInterface : OpInterface<"LayerOpInterface"> {
  let cppNamespace = "::hd";
  let description = [{
    A layer of the training graph: an op that computes one output tensor from
    its inputs and owns its parameters. The interface is what the partitioner
    and the cost model need to know about a layer, independent of its kind:

    - the partitioned shape: the tensor whose dimensions a configuration
      splits (the output; the per-sample logits for the loss);
    - the input box a tile of that shape needs from each operand
      (halos for windows, all channels for convolutions, ...);
    - the number of trainable parameters and the forward FLOPs;
    - its split rule: which of those dimensions a configuration may split
      (by default every one: n, c, h, w for 4-D layers, n, c for 2-D ones)
      and the groups a channel split must keep whole;
    - for the cost model, its kind (`HD_LayerOp`'s second argument) and the
      statistics its tasks combine with one another;
    - for the runtime, its descriptor: the attributes the runtime's layer
      descriptor (runtime/include/hdrt/LayerKinds.def) is made of.

    With these, an op is the one place the compiler learns about a layer
    kind: the layer graph, the search, the transfer plans and the lowering
    read nothing else (docs/AddingALayerKind.md).
  }];

  let methods = [
    InterfaceMethod<
      "The shape whose dimensions the `parallel` configuration splits.",
      "::llvm::ArrayRef<int64_t>", "getPartitionedShape", (ins), [{}], [{
        return ::llvm::cast<::mlir::RankedTensorType>(
            $_op->getResult(0).getType()).getShape();
      }]>,
    InterfaceMethod<
      "The box of operand `operandIndex` that the tile `outputBox` of the "
      "partitioned shape reads. Empty when the tile needs nothing from it.",
      "::hd::TileBox", "getInputBox",
      (ins "unsigned":$operandIndex, "const ::hd::TileBox &":$outputBox),
      [{}], [{
        // Elementwise layers read exactly the box they write.
        return outputBox;
      }]>,
    InterfaceMethod<"Number of trainable parameters the layer owns.",
      "int64_t", "getParameterCount", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<
      "Forward floating-point operations for the whole batch "
      "(a multiply-add counts as two).",
      "int64_t", "getForwardFlops", (ins), [{}], [{
        return ::hd::numElements(::llvm::cast<::mlir::RankedTensorType>(
            $_op->getResult(0).getType()).getShape().vec());
      }]>,
    InterfaceMethod<
      "The configurations the layer may take: the dimensions of its "
      "partitioned shape it may split and the groups a channel split keeps "
      "whole. The verifier, the search and the profiler obey it.",
      "::hd::SplitRule", "getSplitRule", (ins), [{}], [{
        return ::hd::SplitRule();
      }]>,
    InterfaceMethod<
      "How the cost model prices the layer's compute; declared by the op's "
      "definition (HD_LayerOp's cost kind).",
      "::hd::CostKind", "getCostKind", (ins), [{}], [{
        return ConcreteOp::kCostKind;
      }]>,
    InterfaceMethod<
      "Bytes per output element the runtime keeps from the layer's forward "
      "for its backward besides the output (none by default).",
      "int64_t", "getWorkspaceBytesPerElement", (ins), [{}], [{
        return 0;
      }]>,
    InterfaceMethod<
      "The statistics the layer's tasks combine with the tasks that hold the "
      "same slice of its output (none by default).",
      "::hd::SharedStatistics", "getSharedStatistics", (ins), [{}], [{
        return ::hd::SharedStatistics();
      }]>,
    InterfaceMethod<
      "The named values the runtime's descriptor of this layer kind is made "
      "of: by default every attribute of the op but its configuration. The "
      "lowering matches them to the descriptor's fields by name.",
      "::mlir::DictionaryAttr", "getRuntimeDescriptor", (ins), [{}], [{
        return ::hd::attributesButConfig($_op);
      }]>,
    InterfaceMethod<"The layer's configuration, null when it has none.",
      "::hd::PConfigAttr", "getParallelConfig", (ins), [{}], [{
        return $_op->template getAttrOfType<::hd::PConfigAttr>("parallel");
      }]>,
  ];

  let verify = [{ return ::hd::verifyLayerConfig($_op); }];
}

#endif // HD_DIALECT_HD_IR_HDINTERFACES_TD
