//===- RuntimeLayer.cpp - a layer as the hdrt runtime takes it ------------===//
//
// Generic over layer kinds: the runtime's table says which fields a kind's
// descriptor has, the op's runtime descriptor says their values by name,
// and any mismatch between the two is an error here, at compile time, not
// a misread struct at run time.
//
//===----------------------------------------------------------------------===//

#include "hd/Conversion/HDToRuntime/RuntimeLayer.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <cstring>

using namespace mlir;

namespace hd {

namespace {

struct FieldInfo {
  const char *name;
  bool isFloat;
  unsigned count;
};

struct KindInfo {
  int64_t id;
  const char *name;
  std::vector<FieldInfo> fields;
};

// clang-format off
const std::vector<KindInfo> &runtimeKinds() {
  static const std::vector<KindInfo> kinds = {
#define HDRT_LAYER(Name, Id, Mnemonic) {Id, #Mnemonic, {
#define HDRT_FIELD(Type, Field) {#Field, HD_IS_FLOAT_##Type, 1},
#define HDRT_ARRAY(Type, Field, Count) {#Field, HD_IS_FLOAT_##Type, Count},
#define HDRT_END_LAYER(Name) }},
#define HD_IS_FLOAT_I64 false
#define HD_IS_FLOAT_F64 true
#include "hdrt/LayerKinds.def"
#undef HD_IS_FLOAT_I64
#undef HD_IS_FLOAT_F64
  };
  return kinds;
}
// clang-format on

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
  const KindInfo *kind = nullptr;
  for (const KindInfo &k : runtimeKinds())
    if (mnemonic == k.name)
      kind = &k;
  if (!kind)
    return operation->emitOpError("has no runtime lowering: the runtime's "
                                  "table (hdrt/LayerKinds.def) has no kind '")
               << mnemonic << "'",
           failure();
  RuntimeLayer layer;
  layer.kind = kind->id;
  layer.kindName = kind->name;
  DictionaryAttr values = op.getRuntimeDescriptor();
  for (const FieldInfo &info : kind->fields) {
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
      auto f = dyn_cast<FloatAttr>(attr);
      if (!f || info.count != 1)
        return operation->emitOpError()
                   << "attribute '" << info.name << "' is " << attr
                   << "; the runtime's descriptor takes a float",
               failure();
      field.floats = {f.getValueAsDouble()};
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
    if (!llvm::any_of(kind->fields, [&](const FieldInfo &f) {
          return attr.getName() == f.name;
        }))
      return operation->emitOpError()
                 << "attribute '" << attr.getName().getValue()
                 << "' has no field in the runtime's " << mnemonic
                 << " descriptor (hdrt/LayerKinds.def)",
             failure();
  return layer;
}

} // namespace hd
