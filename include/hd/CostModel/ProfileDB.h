//===- ProfileDB.h - measured layer times -----------------------*- C++ -*-===//
//
// A JSON file of measured forward + backward times, keyed by the layer's
// signature (op, attributes, shapes) and the tile shape it ran on:
//
//   {"format": "hd-profile-1",
//    "entries": [{"signature": "...", "tile": [8, 64, 55, 55],
//                 "backend": "cpu", "device": "...",
//                 "fwd_ms": 1.25, "bwd_ms": 2.5}]}
//
//===----------------------------------------------------------------------===//

#ifndef HD_COSTMODEL_PROFILEDB_H
#define HD_COSTMODEL_PROFILEDB_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hd {

class ProfileDB {
public:
  /// Reads a database file; errors name the file and the entry.
  static llvm::Expected<ProfileDB> load(llvm::StringRef path);
  static llvm::Expected<ProfileDB> parse(llvm::StringRef json,
                                         llvm::StringRef origin);

  /// Forward + backward milliseconds of `signature` on a tile of `tile`.
  std::optional<double> lookup(const std::string &signature,
                               const std::vector<int64_t> &tile) const;
  size_t size() const { return entries.size(); }

private:
  std::map<std::pair<std::string, std::vector<int64_t>>, double> entries;
};

} // namespace hd

#endif // HD_COSTMODEL_PROFILEDB_H
