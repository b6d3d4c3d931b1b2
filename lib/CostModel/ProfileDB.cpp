//===- ProfileDB.cpp - measured layer times -------------------------------===//

#include "hd/CostModel/ProfileDB.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace llvm;

namespace hd {

static Error profileError(StringRef origin, const Twine &why) {
  return createStringError(inconvertibleErrorCode(),
                           (origin + ": " + why).str());
}

Expected<ProfileDB> ProfileDB::parse(StringRef text, StringRef origin) {
  Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return profileError(origin, "not valid JSON: " +
                                    toString(parsed.takeError()));
  const json::Object *root = parsed->getAsObject();
  if (!root)
    return profileError(origin, "a profile database must be a JSON object");
  std::optional<StringRef> format = root->getString("format");
  if (!format || *format != "hd-profile-1")
    return profileError(origin,
                        "field 'format' must be \"hd-profile-1\"");
  const json::Array *entries = root->getArray("entries");
  if (!entries)
    return profileError(origin, "field 'entries' must be an array");
  ProfileDB db;
  for (size_t i = 0; i < entries->size(); ++i) {
    const json::Object *e = (*entries)[i].getAsObject();
    auto bad = [&](StringRef field, StringRef why) {
      return profileError(origin, formatv("entry {0}: field '{1}' {2}", i,
                                          field, why));
    };
    if (!e)
      return profileError(origin, formatv("entry {0} is not an object", i));
    std::optional<StringRef> sig = e->getString("signature");
    if (!sig || sig->empty())
      return bad("signature", "must be a non-empty string");
    const json::Array *tile = e->getArray("tile");
    if (!tile || tile->empty())
      return bad("tile", "must be a non-empty array of sizes");
    std::vector<int64_t> dims;
    for (const json::Value &d : *tile) {
      std::optional<int64_t> v = d.getAsInteger();
      if (!v || *v < 1)
        return bad("tile", "must hold positive integers");
      dims.push_back(*v);
    }
    double ms = 0;
    for (StringRef field : {"fwd_ms", "bwd_ms"}) {
      std::optional<double> v = e->getNumber(field);
      if (!v || !std::isfinite(*v) || *v < 0)
        return bad(field, "must be a non-negative number");
      ms += *v;
    }
    db.entries[{sig->str(), dims}] = ms;
  }
  return db;
}

Expected<ProfileDB> ProfileDB::load(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(path);
  if (!file)
    return profileError(path, "cannot read the profile database: " +
                                  file.getError().message());
  return parse((*file)->getBuffer(), path);
}

std::optional<double> ProfileDB::lookup(const std::string &signature,
                                        const std::vector<int64_t> &tile) const {
  auto it = entries.find({signature, tile});
  if (it == entries.end())
    return std::nullopt;
  return it->second;
}

} // namespace hd
