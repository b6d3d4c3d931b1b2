//===- CalibrationText.cpp - a device's calibration as text ---------------===//
//
// A GPU machine has no MLIR: hdrt-profile calibrate measures there and
// writes this; hd-profile --import-calibration makes the machine file here.
// One `key value` line per figure, `allreduce BYTES GBPS` per point of the
// all-reduce curve; `backend` and `device` take the rest of their line.
//
//===----------------------------------------------------------------------===//

#include "hdrt/Profile.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace hdrt {

namespace {

/// The figures a calibration holds, by key.
std::map<std::string, double *> figures(HostProfile &p) {
  LinkProfile &l = p.links;
  return {{"dense_gflops", &p.denseGflops},
          {"mem_gbps", &p.memGbps},
          {"launch_us", &p.launchUs},
          {"straggler_fraction", &p.stragglerFraction},
          {"latency_us", &l.latencyUs},
          {"p2p_gbps", &l.p2pGbps},
          {"exchange_seconds", &l.exchangeSeconds},
          {"message_seconds", &l.messageSeconds},
          {"exchange_sent_bytes", &l.exchangeSentBytes},
          {"allreduce_gbps", &l.allReduceGbps}};
}

} // namespace

std::string hostProfileToText(const HostProfile &p) {
  HostProfile copy = p;
  std::string text = "# hd calibration 1\n";
  char line[256];
  auto add = [&](const char *format, auto... values) {
    std::snprintf(line, sizeof line, format, values...);
    text += line;
  };
  text += "backend " + p.backend + "\ndevice " + p.device + "\n";
  add("ranks %d\ncores %u\nlinks %d\n", p.ranks, p.cores,
      int(p.linksMeasured));
  add("exchange_box %lld\n", static_cast<long long>(p.links.exchangeBox));
  for (auto &[key, value] : figures(copy))
    add("%s %.17g\n", key.c_str(), *value);
  for (auto [bytes, gbps] : p.links.allReduceCurve)
    add("allreduce %.17g %.17g\n", bytes, gbps);
  return text;
}

bool hostProfileFromText(const std::string &text, HostProfile &p,
                         std::string &error) {
  p = HostProfile();
  std::map<std::string, double *> known = figures(p);
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool header = false, ranks = false, links = false;
  std::set<std::string> seen;
  while (std::getline(in, line)) {
    ++number;
    auto bad = [&](const std::string &why) {
      error = "line " + std::to_string(number) + ": " + why;
      return false;
    };
    if (line.empty())
      continue;
    if (line[0] == '#') {
      header |= line == "# hd calibration 1";
      continue;
    }
    size_t space = line.find(' ');
    if (space == std::string::npos)
      return bad("'" + line + "' has no value");
    std::string key = line.substr(0, space), rest = line.substr(space + 1);
    if (key == "backend" || key == "device") {
      (key == "backend" ? p.backend : p.device) = rest;
      continue;
    }
    std::istringstream values(rest);
    if (key == "allreduce") {
      double bytes = 0, gbps = 0;
      if (!(values >> bytes >> gbps) || !(bytes > 0) || !(gbps > 0))
        return bad("an all-reduce point needs positive bytes and GB/s");
      p.links.allReduceCurve.push_back({bytes, gbps});
      continue;
    }
    bool counted = key == "ranks" || key == "cores" || key == "links" ||
                   key == "exchange_box";
    if (!counted && !known.count(key))
      return bad("unknown key '" + key + "'");
    double value = 0;
    if (!(values >> value) || !std::isfinite(value) || value < 0)
      return bad("'" + key + "' needs a finite number >= 0");
    if (key == "ranks") {
      p.ranks = int(value);
      ranks = p.ranks >= 1;
    } else if (key == "cores") {
      p.cores = unsigned(value);
    } else if (key == "links") {
      p.linksMeasured = value != 0;
      links = true;
    } else if (key == "exchange_box") {
      p.links.exchangeBox = int64_t(value);
    } else {
      *known.at(key) = value;
      seen.insert(key);
    }
  }
  if (!header)
    error = "not an hd calibration (no '# hd calibration 1' line)";
  else if (!ranks || !links || p.cores < 1 || seen.size() != known.size() ||
           p.backend.empty())
    error = "an incomplete calibration";
  else if (!(p.denseGflops > 0) || !(p.memGbps > 0))
    error = "a calibration without its dense and memory rates";
  return error.empty();
}

} // namespace hdrt
