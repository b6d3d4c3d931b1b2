//===- ProfileDB.h - measured layer times -----------------------*- C++ -*-===//
//
// A JSON file of measured forward, backward and parameter-update times
// (hd-profile writes it), keyed by the layer's signature (op, attributes,
// shapes), the tile shape it ran on, the backend and the device:
//
//   {"format": "hd-profile-1",
//    "entries": [{"signature": "...", "tile": [8, 64, 55, 55],
//                 "backend": "cpu", "device": "...",
//                 "fwd_ms": 1.25, "bwd_ms": 2.5, "update_ms": 0.1}]}
//
// `update_ms` (the optimizer step of the tile's parameters) is optional. The
// cost model looks entries up by signature and tile; a database holds the
// measurements of one machine.
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_PROFILEDB_H
#define HD_COSTMODEL_PROFILEDB_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace hd {

struct ProfileEntry {
  std::string signature;
  std::vector<int64_t> tile;
  std::string backend, device;
  double fwdMs = 0, bwdMs = 0, updateMs = 0;

  double totalMs() const { return fwdMs + bwdMs + updateMs; }
};

class ProfileDB {
public:
  /// Reads a database file; errors name the file and the entry.
  static llvm::Expected<ProfileDB> load(llvm::StringRef path);
  static llvm::Expected<ProfileDB> parse(llvm::StringRef json,
                                         llvm::StringRef origin);
  /// The times of `signature` on a tile of `tile`, from any backend and
  /// device; null where none was measured.
  const ProfileEntry *anyEntry(const std::string &signature,
                               const std::vector<int64_t> &tile) const;
  /// The entry measured with this backend on this device, if any.
  const ProfileEntry *find(const std::string &signature,
                           const std::vector<int64_t> &tile,
                           const std::string &backend,
                           const std::string &device) const;
  /// Adds or replaces the entry of its key.
  void insert(ProfileEntry entry);
  size_t size() const { return entries.size(); }
  /// The database as JSON, in the format parse reads.
  std::string toJSON() const;

private:
  using Key = std::tuple<std::string, std::vector<int64_t>, std::string,
                         std::string>;
  std::map<Key, ProfileEntry> entries;
};

} // namespace hd

#endif // HD_COSTMODEL_PROFILEDB_H
