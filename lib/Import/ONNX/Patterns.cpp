//===- Patterns.cpp - the table of ONNX import patterns -------------------===//
//
// The one list of op families the importer supports.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

namespace hd::onnx_import {

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
