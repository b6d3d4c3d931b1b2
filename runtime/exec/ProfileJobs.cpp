//===- ProfileJobs.cpp - layers to time, as lines of text -----------------===//
//
// signature TAB tile TAB name TAB kind TAB shape TAB degrees TAB attrs TAB
// float0 TAB float1 TAB operands [TAB times...]
// Lists are comma-separated integers; operands are `shape/labels/gradient`
// joined by ';'. Signatures and layer names hold no tabs.
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

std::string jobToText(const std::string &signature,
                      const std::vector<int64_t> &tile,
                      const LayerProfileRequest &r) {
  std::string operands;
  for (size_t i = 0; i < r.operands.size(); ++i)
    operands += (i ? ";" : "") + list(r.operands[i].shape) + "/" +
                (r.operands[i].labels ? "1" : "0") + "/" +
                (r.operands[i].gradient ? "1" : "0");
  char floats[64];
  std::snprintf(floats, sizeof(floats), "%.17g\t%.17g", r.float0, r.float1);
  return signature + "\t" + list(tile) + "\t" + r.name + "\t" +
         std::to_string(r.kind) + "\t" + list(r.shape) + "\t" +
         list(r.degrees) + "\t" + list(r.attrs) + "\t" + floats + "\t" +
         operands;
}

bool jobFromText(const std::string &line, std::string &signature,
                 std::vector<int64_t> &tile, LayerProfileRequest &r,
                 std::string &error) {
  std::vector<std::string> f = split(line, '\t');
  std::vector<int64_t> kind;
  if (f.size() < 10 || !integers(f[1], tile) || !integers(f[3], kind) ||
      kind.size() != 1 || !integers(f[4], r.shape) ||
      !integers(f[5], r.degrees) || !integers(f[6], r.attrs) ||
      !number(f[7], r.float0) || !number(f[8], r.float1)) {
    error = "not a profile job line";
    return false;
  }
  signature = f[0];
  r.name = f[2];
  r.kind = kind[0];
  r.operands.clear();
  for (const std::string &text : split(f[9], ';')) {
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
  return true;
}

} // namespace hdrt
