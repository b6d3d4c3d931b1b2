//===- NodeDiagnostics.h - why ONNX nodes cannot be imported ----*- C++ -*-===//
//
// A model that hd cannot import usually has several unsupported nodes, and
// one error per run would make its author fix them one at a time. So a
// pattern that cannot import its node reports the reason here and the walk
// goes on; at the end the driver emits one error that names every node.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_IMPORT_ONNX_NODEDIAGNOSTICS_H
#define HD_LIB_IMPORT_ONNX_NODEDIAGNOSTICS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <onnx/onnx_pb.h>

#include <deque>
#include <string>

namespace hd::onnx_import {

/// The reasons reported so far, one per failed node.
class NodeDiagnostics {
public:
  /// Starts the reason why `node`, whose location is `loc`, is not imported.
  /// The reason is streamed into the result, which converts to failure():
  ///   return diags.report(node, loc) << "attribute axis=" << axis << "...";
  mlir::Diagnostic &report(const onnx::NodeProto &node, mlir::NameLoc loc);

  bool empty() const { return problems.empty(); }

  /// Emits one error at `fileLoc` that lists every reported node, in the
  /// order reported, with its name, op type and reason.
  void emitCombinedError(mlir::Location fileLoc) const;

private:
  struct Problem {
    std::string opType;
    /// At the node's NameLoc, which carries the node's name.
    mlir::Diagnostic reason;
  };
  /// A deque, so a reason being streamed stays in place while another node
  /// is reported.
  std::deque<Problem> problems;
};

} // namespace hd::onnx_import

#endif // HD_LIB_IMPORT_ONNX_NODEDIAGNOSTICS_H
