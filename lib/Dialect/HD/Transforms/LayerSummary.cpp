//===- LayerSummary.cpp - per-layer table of shapes, params and FLOPs -----===//

#include "hd/Dialect/HD/IR/HDOps.h"
#include "hd/Dialect/HD/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <iterator>

namespace hd {
#define GEN_PASS_DEF_LAYERSUMMARYPASS
#include "hd/Dialect/HD/Transforms/Passes.h.inc"
} // namespace hd

using namespace mlir;
using namespace hd;

namespace {
/// 15840 -> "15.8K", 4.5e9 -> "4.50G": three significant digits, SI suffix.
std::string formatSI(double v) {
  static const char *const suffixes[] = {"", "K", "M", "G", "T", "P"};
  unsigned i = 0;
  while (v >= 999.5 && i + 1 < std::size(suffixes)) {
    v /= 1000;
    ++i;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), i ? "%.3g%s" : "%.0f%s", v, suffixes[i]);
  return buf;
}

struct LayerSummaryPass
    : public hd::impl::LayerSummaryPassBase<LayerSummaryPass> {
  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    os << llvm::format("%-44s %-22s %-16s %10s %10s\n", "layer", "op",
                       "output", "params", "fwd FLOPs");
    int64_t layers = 0, params = 0;
    double flops = 0;
    getOperation().walk([&](LayerOpInterface layer) {
      Operation *op = layer.getOperation();
      std::string shape;
      llvm::raw_string_ostream ss(shape);
      llvm::interleave(
          cast<RankedTensorType>(op->getResult(0).getType()).getShape(), ss,
          "x");
      if (shape.empty())
        shape = "scalar";
      double f = layer.getForwardFlops();
      os << llvm::format("%-44s %-22s %-16s %10lld %10s\n",
                         getLayerName(op).c_str(),
                         op->getName().stripDialect().str().c_str(),
                         shape.c_str(),
                         (long long)layer.getParameterCount(),
                         formatSI(f).c_str());
      ++layers;
      params += layer.getParameterCount();
      flops += f;
    });
    os << llvm::format("total: %lld layers, %lld parameters, %s FLOPs "
                       "forward\n",
                       (long long)layers, (long long)params,
                       formatSI(flops).c_str());
    markAllAnalysesPreserved();
  }
};
} // namespace
