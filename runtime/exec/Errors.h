//===- Errors.h - how the executor reports a failure ------------*- C++ -*-===//

#ifndef HDRT_EXEC_ERRORS_H
#define HDRT_EXEC_ERRORS_H

#include <stdexcept>
#include <string>

namespace hdrt::exec {

/// An error in the program or its input; the ABI layer reports it and ends
/// the job.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An error every rank detects at the same point (a missing checkpoint, a
/// bad flag): rank 0 reports it and all ranks exit cleanly.
struct CollectiveError : Error {
  using Error::Error;
};

/// Collective over the world: throws CollectiveError on every rank unless
/// `ok` on every rank, with the message of the first rank that failed.
void agree(bool ok, const std::string &message);

} // namespace hdrt::exec

#endif // HDRT_EXEC_ERRORS_H
