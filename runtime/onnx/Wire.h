//===- Wire.h - the protobuf wire format: fields in, fields out -*- C++ -*-===//
//
// The runtime reads and writes ONNX files without libprotobuf (a compiled
// program links the runtime alone, and GPU machines may have no protobuf),
// so it needs the wire format itself: a message is a sequence of fields,
// each a tag (field number and wire type) and a value. This file knows
// nothing of ONNX; Weights.cpp and Export.cpp give the fields their meaning.
//
// Reading never trusts a length: every varint, fixed-size value and
// length-delimited payload is checked against the bytes left in its
// message before it is used, so a field never points past its message.
//
//===----------------------------------------------------------------------===//

#ifndef HDRT_ONNX_WIRE_H
#define HDRT_ONNX_WIRE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace hdrt::onnx::wire {

/// The wire types protobuf still uses; groups (3 and 4) are refused.
enum class WireType : uint8_t {
  Varint = 0,
  Fixed64 = 1,
  Bytes = 2,
  Fixed32 = 5
};

const char *wireTypeName(WireType type);

/// One field of a message as it appears in the bytes.
struct Field {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  /// The value of a Varint, Fixed64 or Fixed32 field.
  uint64_t value = 0;
  /// The payload of a Bytes field.
  const uint8_t *data = nullptr;
  size_t size = 0;
  /// The whole field, tag included: what a writer copies to keep it.
  const uint8_t *begin = nullptr;
  const uint8_t *end = nullptr;
};

/// Reads a varint from [pos, end) and advances `pos`; false when the bytes
/// end inside it or it is longer than 64 bits.
bool readVarint(const uint8_t *&pos, const uint8_t *end, uint64_t &value);

/// The fields of one message, in order. Errors name the message and the
/// byte offset from `origin` (the start of the file).
class Reader {
public:
  Reader(const uint8_t *begin, const uint8_t *end, const uint8_t *origin,
         const char *message)
      : pos(begin), end(end), origin(origin), message(message) {}

  bool done() const { return pos == end; }
  /// Reads the next field; false with `error` set on malformed bytes.
  bool next(Field &field, std::string &error);
  /// "ModelProto.graph (7) has wire type varint, expected bytes".
  bool expect(const Field &field, WireType type, const char *name,
              std::string &error) const;
  /// Sets `error` to `what` at `at` (a byte of this message) and returns
  /// false.
  bool fail(const uint8_t *at, const std::string &what,
            std::string &error) const;

private:
  const uint8_t *pos;
  const uint8_t *end;
  const uint8_t *origin;
  const char *message;
};

/// Appends a varint.
void putVarint(std::string &out, uint64_t value);
/// Appends a tag.
void putTag(std::string &out, uint32_t number, WireType type);
/// Appends a Varint field.
void putVarintField(std::string &out, uint32_t number, uint64_t value);
/// Appends a Bytes field: tag, length, payload.
void putBytesField(std::string &out, uint32_t number, const void *data,
                   size_t size);

} // namespace hdrt::onnx::wire

#endif // HDRT_ONNX_WIRE_H
