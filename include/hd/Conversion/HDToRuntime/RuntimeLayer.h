//===- RuntimeLayer.h - a layer as the hdrt runtime takes it ----*- C++ -*-===//
//
// A layer op's runtime kind and descriptor (runtime/include/hdrt/
// LayerKinds.def), filled from the op's runtime descriptor by field name.
// The lowering emits it as a constant struct; hd-profile hands it to the
// runtime's profiler. This header exposes no runtime header: only the
// Conversion library reads the runtime's tables.
//
//===----------------------------------------------------------------------===//

#ifndef HD_CONVERSION_HDTORUNTIME_RUNTIMELAYER_H
#define HD_CONVERSION_HDTORUNTIME_RUNTIMELAYER_H

#include "hd/Dialect/HD/IR/HDInterfaces.h"

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hd {

struct RuntimeLayer {
  struct Field {
    std::string name;
    bool isFloat = false;
    /// One entry per value: integers, or doubles for a float field.
    std::vector<int64_t> ints;
    std::vector<double> floats;
  };

  int64_t kind = 0;     // its number in the runtime's table
  std::string kindName; // and its name there: the op's mnemonic
  std::vector<Field> fields;

  /// The descriptor as the runtime's struct lays it out: one 8-byte word
  /// per value, in field order.
  std::vector<uint64_t> words() const;
};

/// Fails with a diagnostic on the op when the runtime has no such kind, or
/// when the op's runtime descriptor and the kind's fields do not match
/// (a field without its attribute, an attribute without its field, a wrong
/// type or length).
mlir::FailureOr<RuntimeLayer> runtimeLayer(LayerOpInterface op);

} // namespace hd

#endif // HD_CONVERSION_HDTORUNTIME_RUNTIMELAYER_H
