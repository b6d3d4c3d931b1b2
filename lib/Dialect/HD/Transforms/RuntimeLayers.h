//===- RuntimeLayers.h - layers as the hdrt runtime takes them --*- C++ -*-===//
//
// The runtime's ABI table (hdrt/Abi.def) seen from the compiler, and each
// layer's kind and attributes in the form hdrt_define_layer takes: shared by
// the lowering and by hd-profile, which time layers with the runtime.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_DIALECT_HD_TRANSFORMS_RUNTIMELAYERS_H
#define HD_LIB_DIALECT_HD_TRANSFORMS_RUNTIMELAYERS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace hd {

namespace abi {
enum Type { VOID, I32, I64, F64, PTR };

struct Function {
  const char *name;
  Type result;
  std::vector<Type> params;
};

/// Every hdrt_* function, in the table's order.
extern const Function functions[];
extern const size_t numFunctions;

enum class Kind : int64_t {
#define HDRT_LAYER_KIND(Name, Value) Name = Value,
#include "hdrt/Abi.def"
};

constexpr int64_t kImages = -1, kLabels = -2;
} // namespace abi

/// The kind and integer/float attributes hdrt_define_layer expects for a
/// layer (see Abi.def).
struct LayerAttrs {
  abi::Kind kind;
  llvm::SmallVector<int64_t> ints;
  double f0 = 0, f1 = 0;
};

/// Fails with a diagnostic on a layer the runtime cannot run.
mlir::FailureOr<LayerAttrs> layerAttrs(mlir::Operation *op);

/// The graph input an operand reads: the images (f32) or the labels (i32).
int64_t graphInput(mlir::Value operand);

} // namespace hd

#endif // HD_LIB_DIALECT_HD_TRANSFORMS_RUNTIMELAYERS_H
