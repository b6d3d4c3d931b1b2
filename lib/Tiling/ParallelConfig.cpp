//===- ParallelConfig.cpp - degrees of a layer's split --------------------===//

#include "hd/Tiling/ParallelConfig.h"

#include <sstream>

namespace hd {

std::string ParallelConfig::str() const {
  static const char *const names[] = {"n", "c", "h", "w"};
  std::ostringstream os;
  for (size_t i = 0; i < degrees.size() && i < 4; ++i)
    os << (i ? " " : "") << names[i] << "=" << degrees[i];
  return os.str();
}

std::vector<std::vector<int64_t>> replicaGroups(const ParallelConfig &config) {
  const std::vector<int64_t> &d = config.degrees;
  int64_t c = d.size() > 1 ? d[1] : 1;
  int64_t inner = 1; // tasks per step of c: the product of the dims after c
  for (size_t i = 2; i < d.size(); ++i)
    inner *= d[i];
  std::vector<std::vector<int64_t>> groups(c);
  for (int64_t t = 0; t < config.tasks(); ++t)
    groups[(t / inner) % c].push_back(t);
  return groups;
}

static void enumerate(const std::vector<int64_t> &shape, int64_t devices,
                      size_t dim, int64_t product,
                      std::vector<int64_t> &degrees,
                      std::vector<ParallelConfig> &out) {
  if (dim == shape.size()) {
    if (devices % product == 0)
      out.push_back({degrees});
    return;
  }
  for (int64_t d = 1; d <= shape[dim] && product * d <= devices; ++d) {
    if (devices % (product * d) != 0)
      continue;
    degrees[dim] = d;
    enumerate(shape, devices, dim + 1, product * d, degrees, out);
  }
  degrees[dim] = 1;
}

std::vector<ParallelConfig> enumerateConfigs(const std::vector<int64_t> &shape,
                                             int64_t devices) {
  std::vector<ParallelConfig> out;
  if (devices < 1)
    return out;
  std::vector<int64_t> degrees(shape.size(), 1);
  enumerate(shape, devices, 0, 1, degrees, out);
  return out;
}

int SplitRule::firstForbiddenDim(const ParallelConfig &config) const {
  for (size_t d = 0; d < config.degrees.size(); ++d)
    if (config.degrees[d] > 1 && !canSplit(unsigned(d)))
      return int(d);
  return -1;
}

std::vector<ParallelConfig> candidateConfigs(const std::vector<int64_t> &shape,
                                             const SplitRule &rule,
                                             int64_t devices) {
  std::vector<ParallelConfig> out;
  for (ParallelConfig &config : enumerateConfigs(shape, devices))
    if (rule.allows(config))
      out.push_back(std::move(config));
  return out;
}

} // namespace hd
