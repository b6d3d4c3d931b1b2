//===- NodeDiagnostics.cpp - why ONNX nodes cannot be imported ------------===//
//
// The combined error keeps the format users and tests rely on: a count, then
// one indented line per node, `node 'NAME' (OP): REASON`.
//
//===----------------------------------------------------------------------===//

#include "NodeDiagnostics.h"

using namespace mlir;

namespace hd::onnx_import {

Diagnostic &NodeDiagnostics::report(const onnx::NodeProto &node, NameLoc loc) {
  problems.push_back(
      {node.op_type(), Diagnostic(loc, DiagnosticSeverity::Error)});
  return problems.back().reason;
}

void NodeDiagnostics::emitCombinedError(Location fileLoc) const {
  InFlightDiagnostic error = emitError(fileLoc);
  error << problems.size() << " ONNX node" << (problems.size() > 1 ? "s" : "")
        << " cannot be imported:";
  for (const Problem &p : problems) {
    StringRef name = cast<NameLoc>(p.reason.getLocation()).getName().getValue();
    error << "\n  node '" << name << "' (" << p.opType
          << "): " << p.reason.str();
  }
}

} // namespace hd::onnx_import
