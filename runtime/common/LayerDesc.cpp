//===- LayerDesc.cpp - layer kinds and their descriptors' fields ----------===//

#include "hdrt/LayerDesc.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hdrt {

namespace {

struct KindInfo {
  LayerKind kind;
  const char *name;
  std::vector<DescField> fields;
};

// clang-format off
const std::vector<KindInfo> &kinds() {
  static const std::vector<KindInfo> table = {
#define HDRT_LAYER(Name, Id, Mnemonic) {LayerKind::Name, #Mnemonic, {
#define HDRT_FIELD(Type, Field) {#Field, HDRT_IS_FLOAT_##Type, 1},
#define HDRT_ARRAY(Type, Field, Count) {#Field, HDRT_IS_FLOAT_##Type, Count},
#define HDRT_END_LAYER(Name) }},
#define HDRT_IS_FLOAT_I64 false
#define HDRT_IS_FLOAT_F64 true
#include "hdrt/LayerKinds.def"
#undef HDRT_IS_FLOAT_I64
#undef HDRT_IS_FLOAT_F64
  };
  return table;
}
// clang-format on

const KindInfo &info(LayerKind kind) {
  for (const KindInfo &k : kinds())
    if (k.kind == kind)
      return k;
  std::abort(); // Every LayerKind comes from the same table.
}

size_t valueCount(const std::vector<DescField> &fields) {
  size_t n = 0;
  for (const DescField &f : fields)
    n += size_t(f.count);
  return n;
}

// The structs follow the table: 8 bytes per value, no padding.
#define HDRT_LAYER(Name, Id, Mnemonic) constexpr size_t Name##Values = 0
#define HDRT_FIELD(Type, Field) +1
#define HDRT_ARRAY(Type, Field, Count) +(Count)
#define HDRT_END_LAYER(Name)                                                   \
  ;                                                                            \
  static_assert(Name##Values == 0 || sizeof(Name##Desc) == 8 * Name##Values,   \
                #Name "Desc is not its fields in order");
#include "hdrt/LayerKinds.def"

} // namespace

const char *layerKindName(LayerKind kind) { return info(kind).name; }

const std::vector<DescField> &descriptorFields(LayerKind kind) {
  return info(kind).fields;
}

size_t descriptorBytes(LayerKind kind) {
  return 8 * valueCount(info(kind).fields);
}

std::optional<LayerKind> layerKindOf(int64_t id) {
  for (const KindInfo &k : kinds())
    if (int64_t(k.kind) == id)
      return k.kind;
  return std::nullopt;
}

std::optional<LayerKind> layerKindNamed(std::string_view name) {
  for (const KindInfo &k : kinds())
    if (name == k.name)
      return k.kind;
  return std::nullopt;
}

std::string descriptorToText(const LayerDescriptor &d) {
  std::string text;
  size_t next = 0;
  for (const DescField &f : descriptorFields(d.kind)) {
    text += (text.empty() ? "" : ";") + std::string(f.name) + "=";
    for (int i = 0; i < f.count; ++i, ++next) {
      char value[32];
      uint64_t word = next < d.words.size() ? d.words[next] : 0;
      if (f.isFloat) {
        double v;
        std::memcpy(&v, &word, 8);
        std::snprintf(value, sizeof(value), "%.17g", v);
      } else {
        std::snprintf(value, sizeof(value), "%lld",
                      static_cast<long long>(int64_t(word)));
      }
      text += (i ? "," : "") + std::string(value);
    }
  }
  return text;
}

bool descriptorFromText(LayerKind kind, const std::string &text,
                        LayerDescriptor &d, std::string &error) {
  const std::vector<DescField> &fields = descriptorFields(kind);
  d.kind = kind;
  d.words.assign(valueCount(fields), 0);
  std::vector<bool> seen(fields.size(), false);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(start, end - start);
    start = end + 1;
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    size_t index = 0, offset = 0;
    while (index < fields.size() && name != fields[index].name)
      offset += size_t(fields[index++].count);
    if (eq == std::string::npos || index == fields.size() || seen[index]) {
      error = "field '" + name + "' is not a field of " + layerKindName(kind) +
              (index < fields.size() ? " (given twice)" : "");
      return false;
    }
    seen[index] = true;
    const DescField &f = fields[index];
    const char *p = item.c_str() + eq + 1;
    for (int i = 0; i < f.count; ++i) {
      char *stop = nullptr;
      uint64_t word;
      if (f.isFloat) {
        double v = std::strtod(p, &stop);
        std::memcpy(&word, &v, 8);
      } else {
        word = uint64_t(std::strtoll(p, &stop, 10));
      }
      char expected = i + 1 < f.count ? ',' : '\0';
      if (stop == p || *stop != expected) {
        error = "field '" + name + "' needs " + std::to_string(f.count) +
                (f.isFloat ? " number" : " integer") + (f.count > 1 ? "s" : "");
        return false;
      }
      d.words[offset + size_t(i)] = word;
      p = stop + (expected ? 1 : 0);
    }
  }
  for (size_t i = 0; i < fields.size(); ++i)
    if (!seen[i]) {
      error = std::string("field '") + fields[i].name + "' of " +
              layerKindName(kind) + " is missing";
      return false;
    }
  return true;
}

} // namespace hdrt
