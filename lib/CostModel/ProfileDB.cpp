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
    ProfileEntry entry;
    entry.signature = sig->str();
    entry.tile = dims;
    entry.backend = e->getString("backend").value_or("").str();
    entry.device = e->getString("device").value_or("").str();
    for (auto [field, out, required] :
         {std::tuple{"fwd_ms", &entry.fwdMs, true},
          std::tuple{"bwd_ms", &entry.bwdMs, true},
          std::tuple{"update_ms", &entry.updateMs, false}}) {
      std::optional<double> v = e->getNumber(field);
      if (!v && !required && !e->get(field))
        continue;
      if (!v || !std::isfinite(*v) || *v < 0)
        return bad(field, "must be a non-negative number");
      *out = *v;
    }
    db.insert(std::move(entry));
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

const ProfileEntry *ProfileDB::anyEntry(const std::string &signature,
                                        const std::vector<int64_t> &tile) const {
  // Keys sort by signature and tile first: the first entry at or after
  // (signature, tile, "", "") is one of them if any exists.
  auto it = entries.lower_bound({signature, tile, "", ""});
  if (it == entries.end() || std::get<0>(it->first) != signature ||
      std::get<1>(it->first) != tile)
    return nullptr;
  return &it->second;
}

const ProfileEntry *ProfileDB::find(const std::string &signature,
                                    const std::vector<int64_t> &tile,
                                    const std::string &backend,
                                    const std::string &device) const {
  auto it = entries.find({signature, tile, backend, device});
  return it == entries.end() ? nullptr : &it->second;
}

void ProfileDB::insert(ProfileEntry entry) {
  Key key{entry.signature, entry.tile, entry.backend, entry.device};
  entries[key] = std::move(entry);
}

std::string ProfileDB::toJSON() const {
  json::Array list;
  for (const auto &[key, e] : entries) {
    json::Array tile;
    for (int64_t d : e.tile)
      tile.push_back(d);
    list.push_back(json::Object{{"signature", e.signature},
                                {"tile", std::move(tile)},
                                {"backend", e.backend},
                                {"device", e.device},
                                {"fwd_ms", e.fwdMs},
                                {"bwd_ms", e.bwdMs},
                                {"update_ms", e.updateMs}});
  }
  std::string text;
  raw_string_ostream os(text);
  os << formatv("{0:2}", json::Value(json::Object{
                             {"format", "hd-profile-1"},
                             {"entries", std::move(list)}}));
  os << "\n";
  return text;
}

} // namespace hd
