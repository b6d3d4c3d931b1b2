//===- LayerDesc.h - typed layer descriptors, from LayerKinds.def -*- C++
//-*-===//
//
// What hdrt_define_layer receives about a layer beyond its shape and
// configuration: its kind and one struct of named fields per kind
// (Conv2dDesc::kernel, BatchNormDesc::epsilon, ...), declared from the
// table in LayerKinds.def. The compiler emits the same fields in the same
// order, so a descriptor is read in place, never by position.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_LAYERDESC_H
#define HDRT_LAYERDESC_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hdrt {

enum class LayerKind : int64_t {
#define HDRT_LAYER(Name, Id, Mnemonic) Name = Id,
#include "hdrt/LayerKinds.def"
};

// clang-format off
#define HDRT_DESC_I64 int64_t
#define HDRT_DESC_F64 double
#define HDRT_LAYER(Name, Id, Mnemonic) struct Name##Desc {
#define HDRT_FIELD(Type, Field) HDRT_DESC_##Type Field;
#define HDRT_ARRAY(Type, Field, Count) HDRT_DESC_##Type Field[Count];
#define HDRT_END_LAYER(Name) };
#include "hdrt/LayerKinds.def"
// clang-format on
#undef HDRT_DESC_I64
#undef HDRT_DESC_F64

/// One field of a kind's descriptor, as the table declares it.
struct DescField {
  const char *name;
  bool isFloat; // F64, else I64
  int count;    // values: 1 for a scalar
};

/// A kind's name in the table ("conv2d", the op's mnemonic), its fields in
/// order, and the size of its descriptor in bytes (8 per value; 0 for a
/// kind without fields, which takes no descriptor).
const char *layerKindName(LayerKind kind);
const std::vector<DescField> &descriptorFields(LayerKind kind);
size_t descriptorBytes(LayerKind kind);
/// The kind numbered `id` or named `name`, if the table has it.
std::optional<LayerKind> layerKindOf(int64_t id);
std::optional<LayerKind> layerKindNamed(std::string_view name);

/// A kind and its descriptor's bytes, as a program or a profile job holds
/// them.
struct LayerDescriptor {
  LayerKind kind = LayerKind::Relu;
  std::vector<uint64_t> words; // 8 bytes per field value

  template <typename Desc>
  static LayerDescriptor of(LayerKind kind, const Desc &desc) {
    LayerDescriptor d;
    d.kind = kind;
    d.words.resize(sizeof(Desc) / 8);
    __builtin_memcpy(d.words.data(), &desc, d.words.size() * 8);
    return d;
  }
  /// The descriptor as its kind's struct. The caller knows the kind.
  template <typename Desc> const Desc &as() const {
    return *reinterpret_cast<const Desc *>(words.data());
  }
  const void *data() const { return words.empty() ? nullptr : words.data(); }
  size_t bytes() const { return words.size() * 8; }
};

/// "out_channels=64;kernel=3,3;...": the fields by name, for profile jobs
/// and messages. Floats print exactly (%.17g).
std::string descriptorToText(const LayerDescriptor &descriptor);
/// Parses that text for `kind`: every field once, in any order; false with
/// a message naming the field on anything else.
bool descriptorFromText(LayerKind kind, const std::string &text,
                        LayerDescriptor &descriptor, std::string &error);

} // namespace hdrt

#endif // HDRT_LAYERDESC_H
