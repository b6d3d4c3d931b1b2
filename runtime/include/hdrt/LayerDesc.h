//===- LayerDesc.h - typed layer descriptors -------------------*- C++ -*-===//
//
// What hdrt_define_layer receives about a layer beyond its shape and
// configuration: its kind and one struct of named fields per kind (a
// convolution's kernel size, a normalization's epsilon, ...), declared
// from the table in LayerKinds.def. The compiler emits the same fields in the same
// order, so a descriptor is read by name, never by position.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_LAYERDESC_H
#define HDRT_LAYERDESC_H

#include "hdrt/LayerTable.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace hdrt {

// clang-format off
#define HDRT_DESC_I64 int64_t
#define HDRT_DESC_F64 double
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics)                             \
  struct Name##Desc {                                                          \
    static constexpr LayerKind kKind = LayerKind::Name;
#define HDRT_FIELD(Type, Field) HDRT_DESC_##Type Field;
#define HDRT_ARRAY(Type, Field, Count) HDRT_DESC_##Type Field[Count];
#define HDRT_END_LAYER(Name) };
#include "hdrt/LayerKinds.def"
#undef HDRT_DESC_I64
#undef HDRT_DESC_F64
// clang-format on

/// The table's entry of `kind` (every LayerKind has one).
const LayerKindInfo &layerKindInfo(LayerKind kind);

/// A kind and its descriptor's bytes, as a program or a profile job holds
/// them.
struct LayerDescriptor {
  LayerKind kind = LayerKind::Relu;
  std::vector<uint64_t> words; // 8 bytes per field value

  template <typename Desc> static LayerDescriptor of(const Desc &desc) {
    LayerDescriptor d;
    d.kind = Desc::kKind;
    d.words.resize(sizeof(Desc) / 8);
    std::memcpy(d.words.data(), &desc, d.words.size() * 8);
    return d;
  }
  /// The descriptor as its kind's struct (a copy: the words are not the
  /// struct's type).
  template <typename Desc> Desc as() const {
    if (kind != Desc::kKind || bytes() != sizeof(Desc))
      throw std::logic_error(std::string("a ") + layerKindInfo(kind).name +
                             " descriptor read as another kind's");
    Desc desc;
    std::memcpy(&desc, words.data(), sizeof(Desc));
    return desc;
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
