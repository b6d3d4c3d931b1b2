//===- Precision.h - the number types a program computes in ----*- C++ -*-===//
//
// Mixed precision as PyTorch's autocast applies it, decided per layer at
// compile time: a program has one low precision (bf16 or fp16, or none:
// fp32), and each layer's type follows from its kind and its inputs'
// types. Plain C++: the cost model prices a layer by these types (its dense
// rate, the bytes of its activations, transfers and gradients), the IR
// records them (hd.precision, hd.compute_type) and verifies them by the
// same rules.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_PRECISION_H
#define HD_COSTMODEL_PRECISION_H

#include "hd/CostModel/CostKind.h"

#include <optional>
#include <string>
#include <vector>

namespace hd {

enum class Precision { F32, BF16, F16 };

/// Bytes of one element.
inline int bytesOf(Precision p) { return p == Precision::F32 ? 4 : 2; }

/// The types of one layer: its arithmetic, and its output (and that
/// output's gradient) as stored and moved between devices.
struct LayerNumerics {
  Precision compute = Precision::F32;
  Precision output = Precision::F32;
  bool operator==(const LayerNumerics &o) const {
    return compute == o.compute && output == o.output;
  }
};

/// Bytes per parameter of the copy of its fp32 weights that a layer
/// computing in `compute` reads (none in fp32).
inline int weightCopyBytes(Precision compute) {
  return compute == Precision::F32 ? 0 : bytesOf(compute);
}

/// "fp32", "bf16", "fp16": the options' and reports' spelling.
inline const char *precisionName(Precision p) {
  switch (p) {
  case Precision::F32:
    return "fp32";
  case Precision::BF16:
    return "bf16";
  case Precision::F16:
    return "fp16";
  }
  return "?";
}

/// "f32", "bf16", "f16": MLIR's spelling of the element type.
inline const char *precisionTypeName(Precision p) {
  switch (p) {
  case Precision::F32:
    return "f32";
  case Precision::BF16:
    return "bf16";
  case Precision::F16:
    return "f16";
  }
  return "?";
}

/// Either spelling.
inline std::optional<Precision> parsePrecision(const std::string &name) {
  for (Precision p : {Precision::F32, Precision::BF16, Precision::F16})
    if (name == precisionName(p) || name == precisionTypeName(p))
      return p;
  return std::nullopt;
}

/// The widest of the inputs' types; fp32 where they mix bf16 and fp16 (no
/// one of the two holds the other).
inline Precision widestOf(const std::vector<Precision> &inputs) {
  if (inputs.empty())
    return Precision::F32;
  Precision first = inputs.front();
  for (Precision p : inputs)
    if (p != first)
      return Precision::F32;
  return first;
}

/// autocast's rules, for a program whose low precision is `program`:
/// - convolutions and matrix products compute in `dense` (the program's
///   low precision unless a layer is kept in fp32) and write that type;
/// - normalization computes its statistics in fp32 and writes its input's
///   type;
/// - the loss computes and writes fp32;
/// - every other layer (pooling, elementwise, concatenation, views)
///   computes and writes the widest of its inputs' types.
/// `inputs` are the operands' types (a graph input's is fp32).
inline LayerNumerics layerNumerics(CostKind kind,
                                   const std::vector<Precision> &inputs,
                                   Precision dense) {
  switch (kind) {
  case CostKind::Conv:
  case CostKind::Linear:
    return {dense, dense};
  case CostKind::Normalization:
    return {Precision::F32, widestOf(inputs)};
  case CostKind::Loss:
    return {Precision::F32, Precision::F32};
  default: {
    Precision p = widestOf(inputs);
    return {p, p};
  }
  }
}

/// Whether `compute` is a type a layer of `kind` may compute in, in a
/// program of precision `program`: an error message if not. Dense layers
/// may compute in fp32 or the program's type; every other kind's type is
/// layerNumerics'.
inline std::optional<std::string>
checkComputeType(CostKind kind, const std::vector<Precision> &inputs,
                 Precision program, Precision compute) {
  auto named = [](Precision p) { return std::string(precisionTypeName(p)); };
  if (kind == CostKind::Conv || kind == CostKind::Linear) {
    if (compute == Precision::F32 || compute == program)
      return std::nullopt;
    return "computes in " + named(compute) + " in a program of precision " +
           precisionName(program) + ": a convolution or matrix product " +
           "computes in f32 or the program's type (" + named(program) + ")";
  }
  Precision expected = layerNumerics(kind, inputs, program).compute;
  if (compute == expected)
    return std::nullopt;
  std::string why;
  switch (kind) {
  case CostKind::Normalization:
    why = "normalization computes its statistics in f32";
    break;
  case CostKind::Loss:
    why = "the loss computes in f32";
    break;
  default:
    why = "this layer computes in the type of its inputs";
    break;
  }
  return "computes in " + named(compute) + " but " + why + " (" +
         named(expected) + ")";
}

} // namespace hd

#endif // HD_COSTMODEL_PRECISION_H
