//===- LayerTable.h - the runtime's tables as constexpr data ----*- C++ -*-===//
//
// LayerKinds.def as data: each kind's number, name, statistics groups and
// descriptor fields. Header-only and dependency-free, so that the
// compiler's lowering reads the same table without linking the runtime.
// Also a fingerprint of both tables (this one and Abi.def): a program
// carries the one it was compiled with, and a runtime built from other
// tables refuses it instead of misreading its calls or descriptors.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_LAYERTABLE_H
#define HDRT_LAYERTABLE_H

#include <cstdint>
#include <string_view>

namespace hdrt {

enum class LayerKind : int64_t {
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics) Name = Id,
#include "hdrt/LayerKinds.def"
};

/// One field of a kind's descriptor, as the table declares it.
struct DescField {
  const char *name;
  bool isFloat; // F64, else I64
  int count;    // values: 1 for a scalar
};

struct LayerKindInfo {
  LayerKind kind;
  const char *name; // the op's mnemonic: hd.<name>
  unsigned statisticsPerDims;
  const DescField *fields;
  int fieldCount;

  /// The descriptor's size: 8 bytes per value (0 without fields).
  constexpr int64_t descriptorBytes() const {
    int64_t values = 0;
    for (int i = 0; i < fieldCount; ++i)
      values += fields[i].count;
    return 8 * values;
  }
};

namespace table {
// clang-format off
// Each kind's fields, closed by an empty entry so that a kind without
// fields still has an array.
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics)                             \
  inline constexpr DescField Name##Fields[] = {
#define HDRT_FIELD(Type, Field) {#Field, HDRT_TABLE_FLOAT_##Type, 1},
#define HDRT_ARRAY(Type, Field, Count) {#Field, HDRT_TABLE_FLOAT_##Type, Count},
#define HDRT_END_LAYER(Name) {nullptr, false, 0}};
#define HDRT_TABLE_FLOAT_I64 false
#define HDRT_TABLE_FLOAT_F64 true
#include "hdrt/LayerKinds.def"
#undef HDRT_TABLE_FLOAT_I64
#undef HDRT_TABLE_FLOAT_F64

/// Both tables as text, for the fingerprint.
inline constexpr char kText[] =
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics)                             \
  #Name " " #Id " " #Mnemonic " " #Statistics ";"
#define HDRT_FIELD(Type, Field) #Type " " #Field ";"
#define HDRT_ARRAY(Type, Field, Count) #Type " " #Field " " #Count ";"
#include "hdrt/LayerKinds.def"
#define HDRT_FUNCTION(Name, ReturnType, ...) #Name " " #ReturnType " " #__VA_ARGS__ ";"
#include "hdrt/Abi.def"
    ;
// clang-format on

/// FNV-1a, 64 bits.
constexpr uint64_t fnv1a(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}
} // namespace table

inline constexpr LayerKindInfo kLayerKinds[] = {
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics)                             \
  {LayerKind::Name, #Mnemonic, Statistics, table::Name##Fields,                \
   int(sizeof(table::Name##Fields) / sizeof(DescField)) - 1},
#include "hdrt/LayerKinds.def"
};

/// The fingerprint of LayerKinds.def and Abi.def, as int64 for the ABI.
inline constexpr int64_t kTablesFingerprint =
    static_cast<int64_t>(table::fnv1a(table::kText));

/// The table's entry of a kind by number or by name; null when none.
constexpr const LayerKindInfo *findLayerKind(int64_t id) {
  for (const LayerKindInfo &k : kLayerKinds)
    if (int64_t(k.kind) == id)
      return &k;
  return nullptr;
}
constexpr const LayerKindInfo *findLayerKindNamed(std::string_view name) {
  for (const LayerKindInfo &k : kLayerKinds)
    if (name == k.name)
      return &k;
  return nullptr;
}

} // namespace hdrt

#endif // HDRT_LAYERTABLE_H
