//===- JSONReadersFuzzer.cpp - fuzz the machine, strategy, profile readers ===//
//
// An input is a JSON text. Each reader either accepts it or returns an
// error. What the machine and profile readers accept must survive a round
// trip: written back out and read again, it gives the same text.
//
//===----------------------------------------------------------------------===//

#include "hd/CostModel/Machine.h"
#include "hd/CostModel/ProfileDB.h"
#include "hd/Strategy/StrategyReport.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

[[noreturn]] void roundTripFailed(const char *what, const std::string &text) {
  std::fprintf(stderr, "%s does not survive a round trip:\n%s\n", what,
               text.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);

  if (llvm::Expected<hd::Machine> m = hd::parseMachine(text, "fuzz")) {
    std::string once = hd::machineToJSON(*m);
    llvm::Expected<hd::Machine> again = hd::parseMachine(once, "round trip");
    if (!again) {
      llvm::consumeError(again.takeError());
      roundTripFailed("a machine", once);
    }
    if (hd::machineToJSON(*again) != once)
      roundTripFailed("a machine", once);
  } else {
    llvm::consumeError(m.takeError());
  }

  if (llvm::Expected<hd::ProfileDB> db = hd::ProfileDB::parse(text, "fuzz")) {
    std::string once = db->toJSON();
    llvm::Expected<hd::ProfileDB> again =
        hd::ProfileDB::parse(once, "round trip");
    if (!again) {
      llvm::consumeError(again.takeError());
      roundTripFailed("a profile database", once);
    }
    if (again->toJSON() != once)
      roundTripFailed("a profile database", once);
  } else {
    llvm::consumeError(db.takeError());
  }

  if (llvm::Expected<hd::ImportedStrategy> s = hd::parseStrategy(text, "fuzz"))
    (void)s;
  else
    llvm::consumeError(s.takeError());
  return 0;
}
