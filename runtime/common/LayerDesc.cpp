//===- LayerDesc.cpp - layer descriptors and their text -------------------===//

#include "hdrt/LayerDesc.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace hdrt {

// The structs follow the table: 8 bytes per value, no padding.
#define HDRT_LAYER(Name, Id, Mnemonic, Statistics)                             \
  static_assert(findLayerKind(Id)->descriptorBytes() == 0 ||                   \
                    int64_t(sizeof(Name##Desc)) ==                             \
                        findLayerKind(Id)->descriptorBytes(),                  \
                #Name "Desc is not its fields in order");
#include "hdrt/LayerKinds.def"

const LayerKindInfo &layerKindInfo(LayerKind kind) {
  if (const LayerKindInfo *info = findLayerKind(int64_t(kind)))
    return *info;
  std::abort(); // every LayerKind comes from the same table
}

std::string descriptorToText(const LayerDescriptor &d) {
  const LayerKindInfo &info = layerKindInfo(d.kind);
  if (int64_t(d.bytes()) != info.descriptorBytes())
    throw std::logic_error(std::string("a ") + info.name + " descriptor of " +
                           std::to_string(d.bytes()) + " bytes");
  std::string text;
  size_t next = 0;
  for (int f = 0; f < info.fieldCount; ++f) {
    const DescField &field = info.fields[f];
    text += (text.empty() ? "" : ";") + std::string(field.name) + "=";
    for (int i = 0; i < field.count; ++i, ++next) {
      char value[32];
      if (field.isFloat) {
        double v;
        std::memcpy(&v, &d.words[next], 8);
        std::snprintf(value, sizeof(value), "%.17g", v);
      } else {
        std::snprintf(value, sizeof(value), "%lld",
                      static_cast<long long>(int64_t(d.words[next])));
      }
      text += (i ? "," : "") + std::string(value);
    }
  }
  return text;
}

bool descriptorFromText(LayerKind kind, const std::string &text,
                        LayerDescriptor &d, std::string &error) {
  const LayerKindInfo &info = layerKindInfo(kind);
  d.kind = kind;
  d.words.assign(size_t(info.descriptorBytes() / 8), 0);
  std::vector<bool> seen(size_t(info.fieldCount), false);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(start, end - start);
    start = end + 1;
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    int index = 0;
    size_t offset = 0;
    while (index < info.fieldCount && name != info.fields[index].name)
      offset += size_t(info.fields[index++].count);
    if (index == info.fieldCount) {
      error = "field '" + name + "' is not a field of " + info.name;
      return false;
    }
    if (seen[size_t(index)]) {
      error = "field '" + name + "' of " + info.name + " is given twice";
      return false;
    }
    const DescField &field = info.fields[index];
    std::string counted = std::to_string(field.count) +
                          (field.isFloat ? " number" : " integer") +
                          (field.count > 1 ? "s" : "");
    if (eq == std::string::npos) {
      error =
          "field '" + name + "' has no value (" + name + "=" + counted + ")";
      return false;
    }
    seen[size_t(index)] = true;
    const char *p = item.c_str() + eq + 1;
    for (int i = 0; i < field.count; ++i) {
      char *stop = nullptr;
      uint64_t word;
      errno = 0;
      if (field.isFloat) {
        double v = std::strtod(p, &stop);
        std::memcpy(&word, &v, 8);
      } else {
        word = uint64_t(std::strtoll(p, &stop, 10));
      }
      char expected = i + 1 < field.count ? ',' : '\0';
      if (stop == p || *stop != expected || errno == ERANGE) {
        error = "field '" + name + "' needs " + counted;
        return false;
      }
      d.words[offset + size_t(i)] = word;
      p = stop + (expected ? 1 : 0);
    }
  }
  for (int i = 0; i < info.fieldCount; ++i)
    if (!seen[size_t(i)]) {
      error = std::string("field '") + info.fields[i].name + "' of " +
              info.name + " is missing";
      return false;
    }
  return true;
}

} // namespace hdrt
