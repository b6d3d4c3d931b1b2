//===- HDOps.td - layers of a CNN training graph -----------*- tablegen -*-===//
//
// Every op of the hd dialect: the layers, and the transfer and gradient
// sync the parallelization inserts. Longer than 400 lines because it is one
// list of op declarations, each short (operands, traits, a description for
// the generated docs), from which mlir-tblgen generates one HDOps.h.inc,
// one HDOps.cpp.inc and the dialect's docs: splitting the list would add
// generated files and build rules without giving any op a different home.
// The C++ each op adds by hand (verifier, input boxes, counts) is in its
// family's file under lib/Dialect/HD/IR (HDOps.cpp lists them).
//
//===----------------------------------------------------------------------===//

#ifndef HD_DIALECT_HD_IR_HDOPS_TD
#define HD_DIALECT_HD_IR_HDOPS_TD

include "hd/Dialect/HD/IR/HDBase.td"
include "hd/Dialect/HD/IR/HDInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def HD_FloatTensor : RankedTensorOf<[F32]>;
def HD_LabelTensor : RankedTensorOf<[I32]>;

// The cost model's class of a layer's compute (hd::CostKind, in
// include/hd/CostModel/CostKind.h): Conv, Linear, Pool, Normalization,
// Elementwise, Copy, View or Loss.
class HD_CostKind<string kind>
    : ParamNativeOpTrait<"CostKindTrait", "::hd::CostKind::" # kind> {
  let cppNamespace = "::hd";
}

// Every layer: pure, verified, partitionable through LayerOpInterface, and
// priced by the cost model as `costKind`.
class HD_LayerOp<string mnemonic, string costKind, list<Trait> traits = []>
    : Op<HD_Dialect, mnemonic,
         !listconcat(traits, [Pure, HD_CostKind<costKind>,
                              HD_LayerOpInterface])> {
  let hasVerifier = 1;
}

// The configuration every layer may carry.
defvar parallelArg = (ins OptionalAttr<HD_PConfigAttr>:$parallel);

def HD_Conv2dOp : HD_LayerOp<"conv2d", "Conv", [
    DeclareOpInterfaceMethods<HD_LayerOpInterface,
      ["getInputBox", "getParameterCount", "getForwardFlops",
       "getSplitRule"]>]> {
  let summary = "2-D convolution with its own weights and optional bias";
  let description = [{
    `output[n, k, y, x] = bias[k] + sum over (c, i, j) of
     input[n, g*C/G + c, y*sh - pt + i*dh, x*sw - pl + j*dw] * weight[k, c, i, j]`
    where `g = k / (K/G)`, out-of-range input reads are zero, `K` is
    `out_channels` and `G` is `groups`.

    `padding` is `[top, left, bottom, right]`, as in ONNX. The layer owns a
    weight of shape `K x C/G x kh x kw` and, when `bias` is set, a bias of `K`.

    Splittable dims: n, c (output channels), h, w.

    Input region of an output tile `[n0,n1) x [k0,k1) x [y0,y1) x [x0,x1)`:
    - samples `[n0, n1)`;
    - all input channels of the groups that produce `[k0, k1)` (all channels
      when `groups = 1`): a c-split replicates the input;
    - rows `[y0*sh - pt, (y1-1)*sh - pt + (kh-1)*dh + 1)` clipped to the
      image, and likewise for columns: an h/w split needs a halo of
      `(kh-1)*dh + 1 - sh` rows from its neighbours.

    ```mlir
    %y = hd.conv2d %x {out_channels = 64 : i64, kernel = array<i64: 11, 11>,
                       stride = array<i64: 4, 4>, padding = array<i64: 2, 2, 2, 2>,
                       dilation = array<i64: 1, 1>, groups = 1 : i64, bias = true}
        : tensor<32x3x224x224xf32> -> tensor<32x64x55x55xf32>
    ```
  }];
  let arguments = !con((ins HD_FloatTensor:$input,
                        I64Attr:$out_channels,
                        DenseI64ArrayAttr:$kernel,
                        DenseI64ArrayAttr:$stride,
                        DenseI64ArrayAttr:$padding,
                        DenseI64ArrayAttr:$dilation,
                        I64Attr:$groups,
                        BoolAttr:$bias), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def HD_Pool2dOp : HD_LayerOp<"pool2d", "Pool", [
    DeclareOpInterfaceMethods<HD_LayerOpInterface,
      ["getInputBox", "getForwardFlops", "getWorkspaceBytesPerElement"]>]> {
  let summary = "2-D max or average pooling, including global pooling";
  let description = [{
    Reduces each `kernel` window of every channel with `max` or `avg`.
    `padding` is `[top, left, bottom, right]`. Max pooling ignores padding;
    average pooling divides by the window size including padding when
    `count_include_pad` is set, and by the number of real elements otherwise.
    `ceil_mode` rounds the output size up, as in ONNX and PyTorch.

    `global` marks global pooling: the kernel covers the whole image, the
    stride is 1, there is no padding, and the output is `N x C x 1 x 1`.

    Splittable dims: n, c, h, w (a global pool's h and w have size 1).

    Input region of an output tile: the same samples and channels; rows
    `[y0*sh - pt, (y1-1)*sh - pt + kh)` clipped to the image, and likewise
    for columns (a halo of `kh - sh` rows for an h split).
  }];
  let arguments = !con((ins HD_FloatTensor:$input,
                        HD_PoolKind:$kind,
                        DenseI64ArrayAttr:$kernel,
                        DenseI64ArrayAttr:$stride,
                        DenseI64ArrayAttr:$padding,
                        DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                        DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                        UnitAttr:$global), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat =
      "$kind $input attr-dict `:` type($input) `->` type($output)";
}

def HD_LinearOp : HD_LayerOp<"linear", "Linear", [
    DeclareOpInterfaceMethods<HD_LayerOpInterface,
      ["getInputBox", "getParameterCount", "getForwardFlops"]>]> {
  let summary = "fully-connected layer with its own weights and optional bias";
  let description = [{
    `output[n, k] = bias[k] + sum over f of input[n, f] * weight[k, f]`.
    The layer owns a weight of `out_features x F` and, when `bias` is set, a
    bias of `out_features`.

    Splittable dims: n, c (output features). There is no h or w.

    Input region of an output tile `[n0,n1) x [k0,k1)`: samples `[n0, n1)` and
    all input features, so a c-split replicates the input.
  }];
  let arguments = !con((ins HD_FloatTensor:$input,
                        I64Attr:$out_features,
                        BoolAttr:$bias), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def HD_ReluOp
    : HD_LayerOp<"relu", "Elementwise", [SameOperandsAndResultType]> {
  let summary = "rectified linear unit";
  let description = [{
    `output = max(input, 0)`, elementwise on a 2-D or 4-D tensor.

    Splittable dims: every dim of the tensor (n, c, h, w or n, c).
    Input region of a tile: the same box.
  }];
  let arguments = !con((ins HD_FloatTensor:$input), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HD_ActivationOp
    : HD_LayerOp<"activation", "Elementwise", [SameOperandsAndResultType]> {
  let summary = "elementwise activation: clip, sigmoid, hard sigmoid/swish, "
                "SiLU, GELU";
  let description = [{
    `output = f(input)`, elementwise on a 2-D or 4-D tensor, with `f` one of
    (as PyTorch defines them, forward and backward):
    - `clip`: `min(max(x, alpha), beta)` (ReLU6: alpha 0, beta 6); the
      gradient passes where `alpha < x < beta`;
    - `sigmoid`: `1 / (1 + exp(-x))`;
    - `hardsigmoid`: `max(0, min(1, alpha * x + beta))` (PyTorch's: alpha
      1/6, beta 1/2);
    - `hardswish`: `x * hardsigmoid(x)` with alpha 1/6, beta 1/2;
    - `silu`: `x * sigmoid(x)`;
    - `gelu`: `x * Phi(x)`, Phi the standard normal's distribution function
      (the exact form, with erf).

    `alpha` and `beta` are used by `clip` and `hardsigmoid` only, and must be
    0 (or absent) for the others.

    Splittable dims: every dim of the tensor.
    Input region of a tile: the same box.

    ```mlir
    %y = hd.activation clip %x {alpha = 0.0, beta = 6.0} : tensor<8x32x56x56xf32>
    ```
  }];
  let arguments = !con((ins HD_FloatTensor:$input,
                        HD_ActivationFunction:$function,
                        DefaultValuedAttr<F64Attr, "0.0">:$alpha,
                        DefaultValuedAttr<F64Attr, "0.0">:$beta), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$function $input attr-dict `:` type($input)";
}

def HD_BinaryOp : HD_LayerOp<"binary", "Elementwise", [
    AllTypesMatch<["lhs", "output"]>,
    DeclareOpInterfaceMethods<HD_LayerOpInterface, ["getInputBox"]>]> {
  let summary = "elementwise sum, difference, product or quotient, with a "
                "per-sample, per-channel operand";
  let description = [{
    `output = lhs f rhs` with `f` one of `add`, `sub`, `mul`, `div`, where
    `rhs` has `lhs`'s type or, for a 4-D `lhs` of `N x C x H x W`, is
    `N x C x 1 x 1` and applies to every pixel of a channel (squeeze-and-
    excitation's scale). The residual sum of two tensors of one type is
    `hd.add`.

    Splittable dims: every dim of the output.
    Input region of a tile: the same box of `lhs`; of a broadcast `rhs`, the
    tile's samples and channels at its one pixel, so that tasks splitting h
    or w read the same values and their gradients add up.

    ```mlir
    %y = hd.binary mul %x, %s : tensor<8x32x56x56xf32>, tensor<8x32x1x1xf32>
    ```
  }];
  let arguments = !con((ins HD_FloatTensor:$lhs, HD_FloatTensor:$rhs,
                        HD_BinaryFunction:$function), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat =
      "$function $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let extraClassDeclaration = [{
    /// Whether `operand` is one value per sample and channel of `x`: N x C
    /// x 1 x 1 for an N x C x H x W `x` (the importer asks it too).
    static bool perChannel(::llvm::ArrayRef<int64_t> x,
                           ::llvm::ArrayRef<int64_t> operand) {
      return x.size() == 4 && operand.size() == 4 && operand[0] == x[0] &&
             operand[1] == x[1] && operand[2] == 1 && operand[3] == 1;
    }
    /// Whether `rhs` is one value per sample and channel.
    bool isBroadcast() {
      return ::llvm::cast<::mlir::RankedTensorType>(getRhs().getType())
                 .getShape() !=
             ::llvm::cast<::mlir::RankedTensorType>(getLhs().getType())
                 .getShape();
    }
  }];
}

def HD_ChannelBinaryOp : HD_LayerOp<"channel_binary", "Elementwise", [
    SameOperandsAndResultType,
    DeclareOpInterfaceMethods<HD_LayerOpInterface, ["getParameterCount"]>]> {
  let summary = "elementwise sum, difference, product or quotient with the "
                "layer's own per-channel tensor";
  let description = [{
    `output[n, c, ...] = input[n, c, ...] f operand[c]` with `f` one of
    `add`, `sub`, `mul`, `div` and `operand` the layer's own tensor of `C`
    values (for a 2-D `N x F` input, one per feature): a model's `[C, 1, 1]`
    parameter or buffer (ConvNeXt's layer scale, a normalization's mean and
    standard deviation inside the model).

    The operand is trained like every other parameter, unless `frozen`: a
    buffer the model keeps fixed (initialized from the model's weights,
    never updated, its gradient neither computed nor synced). A trained
    operand starts as the identity of `f` (0 or 1); a frozen one is only
    meaningful with the model's weights (`--init`).

    Splittable dims: every dim. The operand is split with the channels;
    tasks that split n, h or w hold replicas whose gradients are summed.
    Input region of a tile: the same box.

    ```mlir
    %y = hd.channel_binary sub %x {frozen} : tensor<8x3x224x224xf32>
    ```
  }];
  let arguments = !con((ins HD_FloatTensor:$input,
                        HD_BinaryFunction:$function, UnitAttr:$frozen),
                       parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$function $input attr-dict `:` type($input)";
}

def HD_BatchNormOp : HD_LayerOp<"batchnorm", "Normalization", [
    SameOperandsAndResultType,
    DeclareOpInterfaceMethods<HD_LayerOpInterface,
      ["getParameterCount", "getForwardFlops", "getSharedStatistics"]>]> {
  let summary = "batch normalization with training-mode statistics";
  let description = [{
    Normalizes each channel with the mean and variance of the GLOBAL batch
    (over n, h and w), then scales and shifts it with the layer's own
    per-channel `scale` and `shift` (2*C parameters). Running statistics are
    updated with `momentum` as in ONNX: `running = running * momentum +
    batch * (1 - momentum)`.

    Splittable dims: n, c, h, w. A split along n, h or w needs a reduction of
    the per-channel sums across the tasks that share a channel.
    Input region of a tile: the same box.
  }];
  let arguments = !con((ins HD_FloatTensor:$input,
                        F64Attr:$epsilon,
                        F64Attr:$momentum), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HD_LayerNormOp : HD_LayerOp<"layer_norm", "Normalization", [
    SameOperandsAndResultType,
    DeclareOpInterfaceMethods<HD_LayerOpInterface,
      ["getParameterCount", "getForwardFlops", "getSharedStatistics"]>]> {
  let summary = "layer normalization over the channels of each pixel";
  let description = [{
    Normalizes each pixel `input[n, :, y, x]` with the mean and variance of
    its `C` channels, then scales and shifts each channel with the layer's
    own `scale` and `shift` (2*C parameters): ConvNeXt's `LayerNorm` on
    channels-last tensors, written on NCHW. The variance is the biased one,
    as PyTorch and ONNX `LayerNormalization` compute it.

    Splittable dims: n, c, h, w. A split along c needs a reduction of the
    per-pixel sums across the tasks that share a pixel.
    Input region of a tile: the same box.

    ```mlir
    %y = hd.layer_norm %x {epsilon = 1.0e-06 : f64} : tensor<8x96x16x16xf32>
    ```
  }];
  let arguments = !con((ins HD_FloatTensor:$input, F64Attr:$epsilon),
                       parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HD_AddOp
    : HD_LayerOp<"add", "Elementwise", [SameOperandsAndResultType]> {
  let summary = "elementwise sum of two activations (residual add)";
  let description = [{
    `output = lhs + rhs` for tensors of the same type.

    Splittable dims: every dim of the tensor.
    Input region of a tile: the same box of both operands.
  }];
  let arguments = !con((ins HD_FloatTensor:$lhs, HD_FloatTensor:$rhs),
                       parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($output)";
}

def HD_ConcatOp : HD_LayerOp<"concat", "Copy", [
    DeclareOpInterfaceMethods<HD_LayerOpInterface, ["getInputBox"]>]> {
  let summary = "concatenation along the channel dimension";
  let description = [{
    Stacks its inputs along dim 1 (channels for 4-D tensors, features for
    2-D ones). All other dims must agree.

    Splittable dims: every dim of the output.
    Input region of an output tile: from each input, the part of the tile
    whose channels fall in that input's channel range, shifted to the input's
    own channel numbering; empty when the tile holds none of its channels.
  }];
  let arguments = !con((ins Variadic<HD_FloatTensor>:$inputs), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat =
      "$inputs attr-dict `:` functional-type($inputs, $output)";
}

def HD_SliceOp : HD_LayerOp<"slice", "Copy", [
    DeclareOpInterfaceMethods<HD_LayerOpInterface, ["getInputBox"]>]> {
  let summary = "a contiguous range of channels";
  let description = [{
    `output[n, c, ...] = input[n, offset + c, ...]`: the channels
    `[offset, offset + C_out)` of its input (features for 2-D tensors), as
    ONNX `Slice` and `Split` along dim 1 write ShuffleNet's channel split.
    All other dims are the input's.

    Splittable dims: every dim of the output.
    Input region of a tile: the same box, its channels shifted by `offset`.

    ```mlir
    %y = hd.slice %x {offset = 24 : i64}
        : tensor<8x48x16x16xf32> -> tensor<8x24x16x16xf32>
    ```
  }];
  let arguments = !con((ins HD_FloatTensor:$input, I64Attr:$offset),
                       parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def HD_ChannelShuffleOp : HD_LayerOp<"channel_shuffle", "Copy", [
    SameOperandsAndResultType,
    DeclareOpInterfaceMethods<HD_LayerOpInterface, ["getSplitRule"]>]> {
  let summary = "ShuffleNet's channel shuffle";
  let description = [{
    Views the `C` channels as `groups x C/groups`, transposes the view and
    flattens it back: `output[n, k * groups + g] = input[n, g * C/groups + k]`,
    as ShuffleNet writes it with `Reshape`, `Transpose` and `Reshape`.

    Splittable dims: n, h, w. An output channel range reads channels spread
    over every group, so a channel split would move the whole input.
    Input region of a tile: the same box (all channels).

    ```mlir
    %y = hd.channel_shuffle %x {groups = 2 : i64} : tensor<8x48x16x16xf32>
    ```
  }];
  let arguments = !con((ins HD_FloatTensor:$input, I64Attr:$groups),
                       parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HD_FlattenOp : HD_LayerOp<"flatten", "View", [
    DeclareOpInterfaceMethods<HD_LayerOpInterface,
      ["getInputBox", "getForwardFlops"]>]> {
  let summary = "reshape N x C x H x W to N x (C*H*W)";
  let description = [{
    Row-major flattening of each sample, as ONNX `Flatten` with `axis = 1`.
    It moves no data within a task.

    Splittable dims: n, c (features).
    Input region of a tile `[n0,n1) x [f0,f1)`: samples `[n0, n1)` and the
    channels `[f0 / (H*W), ceil(f1 / (H*W)))` with all rows and columns: the
    bounding box of the features the tile holds.
  }];
  let arguments = !con((ins HD_FloatTensor:$input), parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def HD_DropoutOp
    : HD_LayerOp<"dropout", "Elementwise", [SameOperandsAndResultType]> {
  let summary = "dropout with a partition-independent mask";
  let description = [{
    Zeroes each element with probability `ratio` and scales the rest by
    `1 / (1 - ratio)`. The mask is drawn from a counter-based generator keyed
    by (seed, layer, global element index), so it does not depend on how the
    layer is split.

    Splittable dims: every dim of the tensor.
    Input region of a tile: the same box.
  }];
  let arguments = !con((ins HD_FloatTensor:$input, F64Attr:$ratio),
                       parallelArg);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HD_SoftmaxCrossEntropyOp : HD_LayerOp<"softmax_cross_entropy", "Loss", [
    DeclareOpInterfaceMethods<HD_LayerOpInterface,
      ["getPartitionedShape", "getInputBox", "getForwardFlops",
       "getSharedStatistics"]>]> {
  let summary = "softmax cross-entropy loss, mean over the global batch";
  let description = [{
    `loss = mean over n of -log(softmax(logits[n])[labels[n]])`. It ends the
    forward pass and starts the backward one.

    Splittable dims: n, c of the logits. A c split needs a reduction of the
    per-sample maximum and sum across the tasks that share a sample.
    Input region of a tile `[n0,n1) x [k0,k1)`: that box of the logits and
    labels `[n0, n1)`.
  }];
  let arguments = !con((ins HD_FloatTensor:$logits, HD_LabelTensor:$labels),
                       parallelArg);
  let results = (outs 0DTensorOf<[F32]>:$loss);
  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels)
    `->` type($loss)
  }];
}

//===----------------------------------------------------------------------===//
// Data movement: explicit after --hd-insert-transfers
//===----------------------------------------------------------------------===//

def HD_TransferOp : Op<HD_Dialect, "transfer", [Pure,
    AllTypesMatch<["input", "output"]>]> {
  let summary = "redistribute a tensor from one layer's tiles to another's";
  let description = [{
    The same tensor, moved from the tiles of the producer's configuration
    (`from`) to where the consumer's tasks (configuration `to`) read it. The
    plan `moves` lists every box one task sends another; each consumer task
    gets its input box from its own device's tile plus the boxes sent to it.
    Backward sends the gradients of the same boxes the other way and sums
    them where boxes overlap (halos, replicated inputs).

    For example, a 2-way sample split feeding a 2-way channel split of a
    convolution (which needs all input channels of its samples):

    ```
       from n=2                      to c=2 (each task reads all 64 rows)
       task 0: rows  0..31  ──────▶  task 0: rows 0..63  (0..31 local)
                            ╲   ╱
                             ╲ ╱   move 1 -> 0: rows 32..63
                             ╱ ╲   move 0 -> 1: rows  0..31
                            ╱   ╲
       task 1: rows 32..63  ──────▶  task 1: rows 0..63  (32..63 local)
    ```

    ```mlir
    %t = hd.transfer %x {from = #hd.pconfig<n = 2, c = 1, h = 1, w = 1>,
                         to = #hd.pconfig<n = 1, c = 2, h = 1, w = 1>,
                         moves = [#hd.move<src = 1, dst = 0, lo = [32, 0, 0, 0], hi = [64, 3, 8, 8]>,
                                  #hd.move<src = 0, dst = 1, lo = [0, 0, 0, 0], hi = [32, 3, 8, 8]>]}
        : tensor<64x3x8x8xf32>
    ```
  }];
  let arguments = (ins HD_FloatTensor:$input, HD_PConfigAttr:$from,
                   HD_PConfigAttr:$to,
                   TypedArrayAttrBase<HD_MoveAttr, "transfer plan">:$moves);
  let results = (outs HD_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def HD_GradSyncOp : Op<HD_Dialect, "grad_sync", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "all-reduce a layer's parameter gradients over its replicas";
  let description = [{
    After backward, the tasks of the layer that produced `layer_output`
    which hold the same parameter shard (the same tile index along c; they
    differ along n, h or w) sum their gradients. `groups` lists each replica
    group's tasks; `bytes` is the size of one shard's gradient.

    ```mlir
    hd.grad_sync %conv {groups = [array<i64: 0, 2>, array<i64: 1, 3>],
                        bytes = 92928 : i64} : tensor<32x64x55x55xf32>
    ```
  }];
  let arguments = (ins HD_FloatTensor:$layer_output,
                   TypedArrayAttrBase<DenseI64ArrayAttr, "replica groups">:$groups,
                   I64Attr:$bytes);
  let assemblyFormat = "$layer_output attr-dict `:` type($layer_output)";
  let hasVerifier = 1;
}

#endif // HD_DIALECT_HD_IR_HDOPS_TD
