//===- RuntimeLayer.cpp - a layer as the hdrt runtime takes it ------------===//
//
// Generic over layer kinds: the runtime's table says which fields a kind's
// descriptor has, the op's runtime descriptor says their values by name,
// and any mismatch between the two is an error here, at compile time, not
// a misread struct at run time.
//
//===----------------------------------------------------------------------===//

#include "hd/Conversion/HDToRuntime/RuntimeLayer.h"

#include "hdrt/LayerTable.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace mlir;

namespace hd {

namespace {

/// The values of `attr` for a field of `count` floats, or failure.
FailureOr<std::vector<double>> floats(Attribute attr, unsigned count) {
  std::vector<double> values;
  if (auto f = dyn_cast<FloatAttr>(attr))
    values = {f.getValueAsDouble()};
  else if (auto a = dyn_cast<DenseF64ArrayAttr>(attr))
    values.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  if (values.size() != count)
    return failure();
  return values;
}

/// The values of `attr` for a field of `count` integers, or failure.
FailureOr<std::vector<int64_t>> integers(Attribute attr, unsigned count) {
  std::vector<int64_t> values;
  if (auto b = dyn_cast<BoolAttr>(attr))
    values = {b.getValue() ? 1 : 0};
  else if (isa<UnitAttr>(attr))
    values = {1};
  else if (auto i = dyn_cast<IntegerAttr>(attr)) // enums included
    values = {i.getValue().getSExtValue()};
  else if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
    values.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  if (values.size() != count)
    return failure();
  return values;
}

} // namespace

std::vector<uint64_t> RuntimeLayer::words() const {
  std::vector<uint64_t> words;
  for (const Field &f : fields) {
    for (int64_t v : f.ints)
      words.push_back(uint64_t(v));
    for (double v : f.floats) {
      uint64_t w;
      std::memcpy(&w, &v, sizeof(w));
      words.push_back(w);
    }
  }
  return words;
}

FailureOr<RuntimeLayer> runtimeLayer(LayerOpInterface op) {
  Operation *operation = op.getOperation();
  StringRef mnemonic = operation->getName().stripDialect();
  const hdrt::LayerKindInfo *kind = hdrt::findLayerKindNamed(mnemonic);
  if (!kind)
    return operation->emitOpError("has no runtime lowering: the runtime's "
                                  "table (hdrt/LayerKinds.def) has no kind '")
               << mnemonic << "'",
           failure();
  if (op.getSharedStatistics().perDims != kind->statisticsPerDims)
    return operation->emitOpError()
               << "shares statistics across dimensions "
               << op.getSharedStatistics().perDims << " but the runtime's "
               << mnemonic << " kind across " << kind->statisticsPerDims
               << " (hdrt/LayerKinds.def)",
           failure();
  RuntimeLayer layer;
  layer.kind = int64_t(kind->kind);
  layer.kindName = kind->name;
  DictionaryAttr values = op.getRuntimeDescriptor();
  for (const hdrt::DescField &info :
       llvm::ArrayRef(kind->fields, size_t(kind->fieldCount))) {
    RuntimeLayer::Field &field = layer.fields.emplace_back();
    field.name = info.name;
    field.isFloat = info.isFloat;
    Attribute attr = values.get(info.name);
    if (!attr) {
      // An optional attribute that is not set reads as zero.
      if (!llvm::is_contained(operation->getName().getAttributeNames(),
                              StringAttr::get(op->getContext(), info.name)))
        return operation->emitOpError()
                   << "has no attribute '" << info.name
                   << "', a field of the runtime's " << mnemonic
                   << " descriptor (hdrt/LayerKinds.def)",
               failure();
      if (info.isFloat)
        field.floats.assign(info.count, 0.0);
      else
        field.ints.assign(info.count, 0);
      continue;
    }
    if (info.isFloat) {
      FailureOr<std::vector<double>> values = floats(attr, info.count);
      if (failed(values))
        return operation->emitOpError()
                   << "attribute '" << info.name << "' is " << attr
                   << "; the runtime's descriptor takes " << info.count
                   << " float" << (info.count > 1 ? "s" : ""),
               failure();
      field.floats = std::move(*values);
      continue;
    }
    FailureOr<std::vector<int64_t>> ints = integers(attr, info.count);
    if (failed(ints))
      return operation->emitOpError()
                 << "attribute '" << info.name << "' is " << attr
                 << "; the runtime's descriptor takes " << info.count
                 << " integer" << (info.count > 1 ? "s" : ""),
             failure();
    field.ints = std::move(*ints);
  }
  for (NamedAttribute attr : values)
    if (!llvm::any_of(
            llvm::ArrayRef(kind->fields, size_t(kind->fieldCount)),
            [&](const hdrt::DescField &f) { return attr.getName() == f.name; }))
      return operation->emitOpError()
                 << "attribute '" << attr.getName().getValue()
                 << "' has no field in the runtime's " << mnemonic
                 << " descriptor (hdrt/LayerKinds.def)",
             failure();
  return layer;
}

} // namespace hd
