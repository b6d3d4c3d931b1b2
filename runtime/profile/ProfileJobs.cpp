//===- ProfileJobs.cpp - layers to time, as lines of text -----------------===//
//
// signature TAB tile TAB name TAB kind TAB shape TAB degrees TAB descriptor
// TAB operands [TAB fwd ms TAB bwd ms TAB update ms]
// Lists are comma-separated integers; the kind is its LayerKinds.def name
// and the descriptor its fields by name (hdrt/LayerDesc.h); operands are
// `shape/labels/gradient` joined by ';'. Signatures and layer names hold no
// tabs.
//
//===----------------------------------------------------------------------===//

#include "hdrt/Profile.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace hdrt {

namespace {

std::string list(const std::vector<int64_t> &values) {
  std::string s;
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? "," : "") + std::to_string(values[i]);
  return s;
}

std::vector<std::string> split(const std::string &s, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, separator))
    parts.push_back(part);
  if (!s.empty() && s.back() == separator)
    parts.emplace_back();
  return parts;
}

bool integers(const std::string &s, std::vector<int64_t> &out) {
  out.clear();
  if (s.empty())
    return true;
  for (const std::string &part : split(s, ',')) {
    char *end = nullptr;
    long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end)
      return false;
    out.push_back(v);
  }
  return true;
}

bool number(const std::string &s, double &out) {
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && !*end;
}

} // namespace

std::string jobToText(const ProfileJob &job) {
  const LayerProfileRequest &r = job.request;
  std::string operands;
  for (size_t i = 0; i < r.operands.size(); ++i)
    operands += (i ? ";" : "") + list(r.operands[i].shape) + "/" +
                (r.operands[i].labels ? "1" : "0") + "/" +
                (r.operands[i].gradient ? "1" : "0");
  std::string text = job.signature + "\t" + list(job.tile) + "\t" + r.name +
                     "\t" + layerKindInfo(r.layer.kind).name + "\t" +
                     list(r.shape) + "\t" + list(r.degrees) + "\t" +
                     descriptorToText(r.layer) + "\t" + operands;
  if (job.times) {
    char times[96];
    std::snprintf(times, sizeof(times), "\t%.6f\t%.6f\t%.6f", (*job.times)[0],
                  (*job.times)[1], (*job.times)[2]);
    text += times;
  }
  return text;
}

bool jobFromText(const std::string &line, ProfileJob &job, std::string &error) {
  std::vector<std::string> f = split(line, '\t');
  LayerProfileRequest &r = job.request;
  const LayerKindInfo *kind =
      f.size() >= 8 ? findLayerKindNamed(f[3]) : nullptr;
  if (!kind || !integers(f[1], job.tile) || !integers(f[4], r.shape) ||
      !integers(f[5], r.degrees)) {
    error = "not a profile job line";
    return false;
  }
  if (!descriptorFromText(kind->kind, f[6], r.layer, error))
    return false;
  job.signature = f[0];
  r.name = f[2];
  r.operands.clear();
  for (const std::string &text : split(f[7], ';')) {
    std::vector<std::string> o = split(text, '/');
    ProfileOperand op;
    if (o.size() != 3 || !integers(o[0], op.shape)) {
      error = "a malformed operand '" + text + "'";
      return false;
    }
    op.labels = o[1] == "1";
    op.gradient = o[2] == "1";
    r.operands.push_back(op);
  }
  job.times.reset();
  if (f.size() == 8)
    return true;
  std::array<double, 3> times;
  if (f.size() != 11 || !number(f[8], times[0]) || !number(f[9], times[1]) ||
      !number(f[10], times[2])) {
    error = "a job without its three times";
    return false;
  }
  job.times = times;
  return true;
}

} // namespace hdrt
