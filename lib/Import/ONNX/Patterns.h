//===- Patterns.h - the table of ONNX import patterns -----------*- C++ -*-===//
//
// Each op family (convolution, pooling, ...) lives in its own file with the
// patterns that import it, and adds them to one table keyed by ONNX op_type
// through its add*Patterns function. So supporting a new family is a new file
// and one line in buildPatternTable, and the driver never names an op type.
//
// An op type may have several patterns: the layer it is, the chains of
// nodes that exporters write for one layer and that start at it (SiLU's
// Mul, the erf GELU's Div, the layer norm's ReduceMean), and shape
// arithmetic computed at import. Each pattern answers no match, matched or
// failed, so the family that recognizes a chain registers the pattern that
// starts it, and no family calls into another's. The driver tries an op
// type's patterns by benefit, highest first, and stops at the first that
// matches or fails.
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_IMPORT_ONNX_PATTERNS_H
#define HD_LIB_IMPORT_ONNX_PATTERNS_H

#include "ImportContext.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <functional>

namespace hd::onnx_import {

/// What a pattern did with the node it was given.
enum class PatternResult {
  /// The node is not this pattern's: nothing was built, defined or
  /// reported, and the driver tries the op type's next pattern.
  NoMatch,
  /// The node is imported: its first output is defined.
  Matched,
  /// The node is this pattern's but cannot be imported: the reason is
  /// reported through ctx.fail, unless an input's producer already
  /// reported one. The driver tries no other pattern.
  Failed,
};

/// A pattern's answer once it knows the node is its own: Matched when the
/// import succeeded, Failed when it reported why not.
inline PatternResult matchedOrFailed(mlir::LogicalResult imported) {
  return mlir::succeeded(imported) ? PatternResult::Matched
                                   : PatternResult::Failed;
}

/// Imports `node` when it is the pattern's, through `ctx`. The driver has
/// checked that the node has a first output, its attribute types and its
/// domain.
using ImportPattern = PatternResult (*)(const onnx::NodeProto &node,
                                        ImportContext &ctx);

/// A pattern that takes every node of its op type: it imports the node
/// (success) or reports why not (failure), as ImportPattern's Matched and
/// Failed. The layer an op type is.
using LayerPattern = mlir::LogicalResult (*)(const onnx::NodeProto &node,
                                             ImportContext &ctx);

/// The order in which the driver tries an op type's patterns, highest
/// first, as MLIR's RewritePattern benefit. No two patterns of one op type
/// share a benefit (PatternTable::add refuses it), so the order never
/// depends on which family registered first.
enum class PatternBenefit : unsigned {
  /// The layer the op type is (a LayerPattern): it takes every node, so it
  /// comes last.
  Layer = 0,
  /// A chain of nodes that stands for one layer, recognized from its first
  /// node; a node that starts no chain is left to the layer.
  Chain = 1,
  /// Shape arithmetic on integer constants, computed at import: such a
  /// node is no layer and starts no chain, whatever its op type.
  Fold = 2,
};

/// The patterns of each supported op type.
class PatternTable {
public:
  /// One registered pattern.
  struct Entry {
    PatternBenefit benefit;
    std::function<PatternResult(const onnx::NodeProto &, ImportContext &)>
        matchAndImport;
  };

  /// Adds `pattern` for `opType`. Aborts when `opType` has a pattern of
  /// that benefit already: their order would be a guess.
  void add(llvm::StringRef opType, PatternBenefit benefit,
           ImportPattern pattern);
  /// Adds the layer `opType` is, at PatternBenefit::Layer.
  void add(llvm::StringRef opType, LayerPattern pattern);

  /// The patterns of `opType`, highest benefit first; none when hd does not
  /// support it.
  llvm::ArrayRef<Entry> lookup(llvm::StringRef opType) const;

private:
  void insert(llvm::StringRef opType, Entry entry);

  llvm::StringMap<llvm::SmallVector<Entry, 1>> patterns;
};

void addActivationPatterns(PatternTable &table);
void addConvPatterns(PatternTable &table);
void addElementwisePatterns(PatternTable &table);
void addLinearPatterns(PatternTable &table);
void addNormalizationPatterns(PatternTable &table);
void addPoolPatterns(PatternTable &table);
void addShapePatterns(PatternTable &table);
void addShapeArithmeticPatterns(PatternTable &table);
void addLayoutPatterns(PatternTable &table);
void addChannelsLastPatterns(PatternTable &table);

/// Every family's patterns.
PatternTable buildPatternTable();

} // namespace hd::onnx_import

#endif // HD_LIB_IMPORT_ONNX_PATTERNS_H
