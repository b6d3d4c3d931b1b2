//===- Wire.cpp - the protobuf wire format: fields in, fields out ---------===//
//
// A varint is at most ten bytes of seven bits each; a length-delimited
// field's length is compared with the bytes left before anything reads or
// allocates past it, so malicious lengths fail here and nowhere else.
//
//===----------------------------------------------------------------------===//

#include "Wire.h"

namespace hdrt::onnx::wire {

const char *wireTypeName(WireType type) {
  switch (type) {
  case WireType::Varint:
    return "varint";
  case WireType::Fixed64:
    return "64-bit";
  case WireType::Bytes:
    return "length-delimited";
  case WireType::Fixed32:
    return "32-bit";
  }
  return "unknown";
}

bool readVarint(const uint8_t *&pos, const uint8_t *end, uint64_t &value) {
  uint64_t v = 0;
  const uint8_t *p = pos;
  for (int i = 0; i < 10; ++i) {
    if (p == end)
      return false;
    uint8_t byte = *p++;
    // The tenth byte holds bit 63 alone.
    if (i == 9 && byte > 1)
      return false;
    v |= uint64_t(byte & 0x7f) << (7 * i);
    if (!(byte & 0x80)) {
      pos = p;
      value = v;
      return true;
    }
  }
  return false;
}

bool Reader::fail(const uint8_t *at, const std::string &what,
                  std::string &error) const {
  error = "malformed ONNX model: " + what + " in a " + message + " at byte " +
          std::to_string(at - origin);
  return false;
}

bool Reader::next(Field &field, std::string &error) {
  const uint8_t *start = pos;
  uint64_t tag;
  if (!readVarint(pos, end, tag))
    return fail(start, "a truncated or invalid field tag", error);
  if (tag > 0xffffffffu || (tag >> 3) == 0)
    return fail(start, "an invalid field number", error);
  field = Field();
  field.number = uint32_t(tag >> 3);
  field.begin = start;
  unsigned type = unsigned(tag & 7);
  switch (type) {
  case 0:
    field.type = WireType::Varint;
    if (!readVarint(pos, end, field.value))
      return fail(start,
                  "a truncated or invalid varint (field " +
                      std::to_string(field.number) + ")",
                  error);
    break;
  case 1:
  case 5: {
    size_t width = type == 1 ? 8 : 4;
    field.type = type == 1 ? WireType::Fixed64 : WireType::Fixed32;
    if (size_t(end - pos) < width)
      return fail(start,
                  "a truncated " + std::to_string(width * 8) +
                      "-bit value (field " + std::to_string(field.number) + ")",
                  error);
    for (size_t i = 0; i < width; ++i)
      field.value |= uint64_t(pos[i]) << (8 * i);
    pos += width;
    break;
  }
  case 2: {
    field.type = WireType::Bytes;
    uint64_t length;
    if (!readVarint(pos, end, length))
      return fail(start,
                  "a truncated or invalid length (field " +
                      std::to_string(field.number) + ")",
                  error);
    if (length > uint64_t(end - pos))
      return fail(start,
                  "a length of " + std::to_string(length) +
                      " bytes past the end (" + std::to_string(end - pos) +
                      " left, field " + std::to_string(field.number) + ")",
                  error);
    field.data = pos;
    field.size = size_t(length);
    pos += length;
    break;
  }
  case 3:
  case 4:
    return fail(start,
                "a group (field " + std::to_string(field.number) +
                    "), which ONNX does not use",
                error);
  default:
    return fail(start,
                "an invalid wire type " + std::to_string(type) + " (field " +
                    std::to_string(field.number) + ")",
                error);
  }
  field.end = pos;
  return true;
}

bool Reader::expect(const Field &field, WireType type, const char *name,
                    std::string &error) const {
  if (field.type == type)
    return true;
  return fail(field.begin,
              std::string(name) + " (" + std::to_string(field.number) +
                  ") with wire type " + wireTypeName(field.type) +
                  ", expected " + wireTypeName(type),
              error);
}

void putVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(char(uint8_t(value) | 0x80));
    value >>= 7;
  }
  out.push_back(char(value));
}

void putTag(std::string &out, uint32_t number, WireType type) {
  putVarint(out, (uint64_t(number) << 3) | uint64_t(type));
}

void putVarintField(std::string &out, uint32_t number, uint64_t value) {
  putTag(out, number, WireType::Varint);
  putVarint(out, value);
}

void putBytesField(std::string &out, uint32_t number, const void *data,
                   size_t size) {
  putTag(out, number, WireType::Bytes);
  putVarint(out, size);
  out.append(static_cast<const char *>(data), size);
}

} // namespace hdrt::onnx::wire
