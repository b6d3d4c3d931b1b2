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
    - the number of trainable parameters and the forward FLOPs.

    Splittable dimensions are those of the partitioned shape: n, c, h, w for
    4-D layers and n, c for 2-D ones.
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
    InterfaceMethod<"The layer's configuration, null when it has none.",
      "::hd::PConfigAttr", "getParallelConfig", (ins), [{}], [{
        return $_op->template getAttrOfType<::hd::PConfigAttr>("parallel");
      }]>,
  ];

  let verify = [{ return ::hd::verifyLayerConfig($_op); }];
}

#endif // HD_DIALECT_HD_IR_HDINTERFACES_TD
