//===- HDBase.td - hd dialect, enums and attributes -------*- tablegen -*-===//
//
// The hd dialect describes CNN training graphs whose layers can each be
// partitioned along the sample (n), channel (c), height (h) and width (w)
// dimensions of their output, as in Jia et al., "Exploring Hidden Dimensions
// in Parallelizing Convolutional Neural Networks" (ICML 2018).
//
//===----------------------------------------------------------------------===//

#ifndef HD_DIALECT_HD_IR_HDBASE_TD
#define HD_DIALECT_HD_IR_HDBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def HD_Dialect : Dialect {
  let name = "hd";
  let cppNamespace = "::hd";
  let summary = "CNN training graphs with per-layer parallelization";
  let description = [{
    The `hd` dialect is a computation graph of CNN layers for training. Every
    layer is one op that owns its parameters (weights, bias, batch-norm scale
    and shift), as in the paper's computation graph: parameters are not SSA
    values, so the graph's edges are exactly the activations that flow between
    layers, and a layer's configuration decides how its parameters are split.

    Tensors are builtin ranked tensors of `f32`: `NxCxHxW` for images and
    feature maps, `NxF` for features, and `N` of `i32` for labels. All shapes
    are static; the verifiers check every output shape against the layer's
    attributes.

    A layer may carry a `parallel` attribute of type `#hd.pconfig`, the degree
    of its split along each dimension it allows. The module may carry
    `hd.devices`, the number of devices the program is compiled for; layers
    then may not use more tasks than that.

    Mixed precision leaves the tensor types as they are and says what the
    runtime computes and stores them in: the module's `hd.precision` (bf16
    or f16) and `hd.grad_sync_type` (bf16; absent, gradients are summed in
    f32), and each layer's `hd.compute_type`. A layer's output type follows
    from its compute type and its inputs' types by autocast's rules
    (convolutions and matrix products in the program's type or f32,
    normalization statistics and the loss in f32, every other layer in its
    inputs' type), and the verifier of `hd.precision` checks every layer
    against them.

    After an ONNX import, a layer with parameters carries `hd.tensors`, the
    names of the ONNX tensors that hold them (and a batch norm's running
    statistics), by the runtime's parameter names, and `hd.tensors_transposed`
    for a tensor stored as the transpose of hd's layout. The module carries
    `hd.source`, the ONNX model itself without those tensors' data. Programs
    start from those tensors with `--init model.onnx` and write them back with
    `--export-onnx`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// The most devices a program may use: beyond any machine hd targets,
    /// and small enough that task counts stay far from overflow.
    static constexpr int64_t kMaxDevices = 65536;

    /// Name of the module attribute that holds the device count.
    static constexpr ::llvm::StringLiteral getDevicesAttrName() {
      return ::llvm::StringLiteral("hd.devices");
    }
    /// Names of the module attributes that hold the program's low
    /// precision (bf16 or f16; none: f32) and the type its gradients are
    /// summed in (none: f32), and of a layer's attribute that holds the
    /// type it computes in (HDNumerics.h).
    static constexpr ::llvm::StringLiteral getPrecisionAttrName() {
      return ::llvm::StringLiteral("hd.precision");
    }
    static constexpr ::llvm::StringLiteral getGradSyncAttrName() {
      return ::llvm::StringLiteral("hd.grad_sync_type");
    }
    static constexpr ::llvm::StringLiteral getComputeTypeAttrName() {
      return ::llvm::StringLiteral("hd.compute_type");
    }
    /// Name of the module attribute that holds the model's name.
    static constexpr ::llvm::StringLiteral getModelAttrName() {
      return ::llvm::StringLiteral("hd.model");
    }
    /// Name of the module attribute that holds the source ONNX model (with
    /// the data of the parameters hd trains removed), which
    /// `--export-onnx` writes back with the trained values.
    static constexpr ::llvm::StringLiteral getSourceAttrName() {
      return ::llvm::StringLiteral("hd.source");
    }
    /// Name of a layer's attribute that names the source tensors of its
    /// parameters and statistics, by the runtime's names:
    /// `{weight = "conv1.weight", bias = "conv1.bias"}`.
    static constexpr ::llvm::StringLiteral getTensorsAttrName() {
      return ::llvm::StringLiteral("hd.tensors");
    }
    /// Name of a layer's attribute that lists which of those source tensors
    /// hold the transpose of hd's layout (an ONNX Gemm with transB = 0).
    static constexpr ::llvm::StringLiteral getTransposedTensorsAttrName() {
      return ::llvm::StringLiteral("hd.tensors_transposed");
    }
  }];
}

class HD_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<HD_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// The numbers of these enums are the runtime's too (hdrt::PoolKind,
// hdrt::ActivationFunction, hdrt::BinaryFunction, beside their kinds'
// kernels in runtime/kernels/): a descriptor carries them across the ABI,
// and lib/Conversion/HDToRuntime/EnumTwins.cpp fails the build where the
// two disagree.
def HD_PoolKind : I32EnumAttr<"PoolKind", "pooling reduction", [
    I32EnumAttrCase<"Max", 0, "max">,
    I32EnumAttrCase<"Avg", 1, "avg">
  ]> {
  let cppNamespace = "::hd";
}

def HD_ActivationFunction : I32EnumAttr<"ActivationFunction",
    "elementwise activation function", [
    I32EnumAttrCase<"Clip", 0, "clip">,
    I32EnumAttrCase<"Sigmoid", 1, "sigmoid">,
    I32EnumAttrCase<"HardSigmoid", 2, "hardsigmoid">,
    I32EnumAttrCase<"HardSwish", 3, "hardswish">,
    I32EnumAttrCase<"Silu", 4, "silu">,
    I32EnumAttrCase<"Gelu", 5, "gelu">
  ]> {
  let cppNamespace = "::hd";
}

def HD_BinaryFunction : I32EnumAttr<"BinaryFunction",
    "elementwise binary function", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Sub", 1, "sub">,
    I32EnumAttrCase<"Mul", 2, "mul">,
    I32EnumAttrCase<"Div", 3, "div">
  ]> {
  let cppNamespace = "::hd";
}

def HD_PConfigAttr : HD_Attr<"PConfig", "pconfig"> {
  let summary = "degrees of a layer's split along n, c, h and w";
  let description = [{
    A layer's parallelization configuration: how many parts its OUTPUT tensor
    is split into along the sample (`n`), channel (`c`), height (`h`) and width
    (`w`) dimensions. The number of tasks is the product of the degrees; task
    `t` owns tile `t` in row-major (n, c, h, w) order and runs on device `t`.

    ```mlir
    #hd.pconfig<n = 4, c = 1, h = 2, w = 2>   // 16 tasks, conv/pool layers
    #hd.pconfig<n = 2, c = 4>                 // 8 tasks, a fully-connected layer
    ```

    `h` and `w` are absent for layers whose output has no spatial dimensions
    (fully-connected, flatten, loss); absent means 1 for 4-D outputs.

    Partitions are block distributions: along a dimension of size `S` split in
    `d`, part `i` covers `[floor(i*S/d), floor((i+1)*S/d))`, so tile sizes differ
    by at most one (17 rows in 2 parts: 8 + 9). Every degree is at least 1. The
    op verifier further checks each degree against the dimension's size, the
    dimensions the layer may split, and the module's `hd.devices`.
  }];
  let parameters = (ins
    "int64_t":$n,
    "int64_t":$c,
    OptionalParameter<"std::optional<int64_t>">:$h,
    OptionalParameter<"std::optional<int64_t>">:$w
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Degree along h and w, 1 when absent.
    int64_t getHeightDegree() const { return getH().value_or(1); }
    int64_t getWidthDegree() const { return getW().value_or(1); }
    /// Number of tasks: the product of all degrees.
    int64_t getNumTasks() const {
      return getN() * getC() * getHeightDegree() * getWidthDegree();
    }
  }];
}

def HD_MoveAttr : HD_Attr<"Move", "move"> {
  let summary = "one box of a tensor sent from one task to another";
  let description = [{
    Part of an `hd.transfer`'s plan: task `src` of the producer sends the box
    `[lo, hi)` (one half-open range per dimension, in the tensor's global
    coordinates) to task `dst` of the consumer. Tasks run on devices of the
    same number.

    ```mlir
    #hd.move<src = 1, dst = 0, lo = [0, 0, 27, 0], hi = [32, 64, 28, 55]>
    ```
  }];
  let parameters = (ins
    "int64_t":$src,
    "int64_t":$dst,
    ArrayRefParameter<"int64_t">:$lo,
    ArrayRefParameter<"int64_t">:$hi
  );
  let assemblyFormat = [{
    `<` `src` `=` $src `,` `dst` `=` $dst `,` `lo` `=` `[` $lo `]` `,`
    `hi` `=` `[` $hi `]` `>`
  }];
  let genVerifyDecl = 1;
}

#endif // HD_DIALECT_HD_IR_HDBASE_TD
