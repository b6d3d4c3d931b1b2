//===- Patterns.cpp - the table of ONNX import patterns -------------------===//
//
// The one list of op families the importer supports, and the order in which
// an op type's patterns are tried.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

namespace hd::onnx_import {

void PatternTable::insert(StringRef opType, Entry entry) {
  SmallVector<Entry, 1> &entries = patterns[opType];
  // Highest benefit first; a tie is a table that does not say which of two
  // patterns wins, a mistake in the importer, not in the model.
  auto *pos = llvm::find_if(entries, [&](const Entry &e) {
    return e.benefit <= entry.benefit;
  });
  if (pos != entries.end() && pos->benefit == entry.benefit)
    llvm::report_fatal_error("ONNX import: two patterns for op type '" +
                             llvm::Twine(opType) + "' share a benefit");
  entries.insert(pos, std::move(entry));
}

void PatternTable::add(StringRef opType, PatternBenefit benefit,
                       ImportPattern pattern) {
  insert(opType, {benefit, pattern});
}

void PatternTable::add(StringRef opType, LayerPattern pattern) {
  insert(opType, {PatternBenefit::Layer,
                  [pattern](const onnx::NodeProto &node, ImportContext &ctx) {
                    return matchedOrFailed(pattern(node, ctx));
                  }});
}

ArrayRef<PatternTable::Entry> PatternTable::lookup(StringRef opType) const {
  auto it = patterns.find(opType);
  if (it == patterns.end())
    return {};
  return it->second;
}

PatternTable buildPatternTable() {
  PatternTable table;
  addActivationPatterns(table);
  addChannelsLastPatterns(table);
  addConvPatterns(table);
  addElementwisePatterns(table);
  addLayoutPatterns(table);
  addLinearPatterns(table);
  addNormalizationPatterns(table);
  addPoolPatterns(table);
  addShapePatterns(table);
  addShapeArithmeticPatterns(table);
  return table;
}

} // namespace hd::onnx_import
