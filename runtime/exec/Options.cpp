//===- Options.cpp - the compiled program's command line ------------------===//

#include "Options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace hdrt::exec {

namespace {

bool parseInt(const char *text, int64_t &out) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (errno || end == text || *end)
    return false;
  out = v;
  return true;
}

bool parseDouble(const char *text, double &out) {
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(text, &end);
  if (errno || end == text || *end || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

} // namespace

std::string usage(const char *program) {
  return std::string("usage: mpirun -np <devices> ") + program +
         " [options]\n"
         "  --steps K            train until step K (default 10)\n"
         "  --seed S             seed of weights, data and dropout (default 1)\n"
         "  --lr X               learning rate (default 0.01)\n"
         "  --momentum X         SGD momentum (default 0.9)\n"
         "  --weight-decay X     SGD weight decay (default 5e-4)\n"
         "  --data FILE          images and labels from a raw file (see the\n"
         "                       runtime docs); synthetic data by default\n"
         "  --metrics FILE       write per-step losses and timings as JSON\n"
         "  --checkpoint DIR     save parameters and optimizer state at the end\n"
         "  --checkpoint-every N also save every N steps\n"
         "  --resume             continue from DIR/checkpoint.hd\n"
         "  --trace FILE         write a Chrome/Perfetto trace of the last step\n"
         "  --quiet              no per-step lines\n"
         "  --no-tf32            GPU: full fp32 convolutions (TF32 tensor\n"
         "                       cores are allowed by default, as in PyTorch)\n";
}

bool parseOptions(int argc, char **argv, Options &o, bool &help,
                  std::string &error) {
  help = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string value;
    bool inlineValue = false;
    if (size_t eq = flag.find('='); flag.rfind("--", 0) == 0 &&
                                    eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inlineValue = true;
    }
    auto next = [&](std::string &out) {
      if (inlineValue) {
        out = value;
        return true;
      }
      if (i + 1 >= argc) {
        error = flag + " needs a value";
        return false;
      }
      out = argv[++i];
      return true;
    };
    auto integer = [&](int64_t &out, int64_t min) {
      std::string v;
      if (!next(v))
        return false;
      if (!parseInt(v.c_str(), out) || out < min) {
        error = flag + " expects an integer >= " + std::to_string(min) +
                ", got '" + v + "'";
        return false;
      }
      return true;
    };
    auto real = [&](double &out) {
      std::string v;
      if (!next(v))
        return false;
      if (!parseDouble(v.c_str(), out) || out < 0) {
        error = flag + " expects a finite number >= 0, got '" + v + "'";
        return false;
      }
      return true;
    };
    int64_t n = 0;
    if (flag == "--help" || flag == "-h") {
      help = true;
    } else if (flag == "--steps") {
      if (!integer(o.steps, 0))
        return false;
    } else if (flag == "--seed") {
      if (!integer(n, 0))
        return false;
      o.seed = static_cast<uint64_t>(n);
    } else if (flag == "--lr") {
      if (!real(o.lr))
        return false;
    } else if (flag == "--momentum") {
      if (!real(o.momentum))
        return false;
    } else if (flag == "--weight-decay") {
      if (!real(o.weightDecay))
        return false;
    } else if (flag == "--metrics") {
      if (!next(o.metrics))
        return false;
    } else if (flag == "--checkpoint") {
      if (!next(o.checkpoint))
        return false;
    } else if (flag == "--checkpoint-every") {
      if (!integer(o.checkpointEvery, 1))
        return false;
    } else if (flag == "--resume") {
      o.resume = true;
    } else if (flag == "--data") {
      if (!next(o.data))
        return false;
    } else if (flag == "--trace") {
      if (!next(o.trace))
        return false;
    } else if (flag == "--quiet") {
      o.quiet = true;
    } else if (flag == "--no-tf32") {
      o.device.tf32 = false;
    } else {
      error = "unknown option '" + std::string(argv[i]) + "'";
      return false;
    }
  }
  if (o.resume && o.checkpoint.empty()) {
    error = "--resume needs --checkpoint DIR to read from";
    return false;
  }
  if (o.checkpointEvery && o.checkpoint.empty()) {
    error = "--checkpoint-every needs --checkpoint DIR";
    return false;
  }
  // Test hook, from the environment so it never shows in the usage.
  if (const char *kill = std::getenv("HDRT_TEST_KILL")) {
    int64_t r = -1, s = -1;
    std::string text = kill;
    size_t colon = text.find(':');
    if (colon == std::string::npos ||
        !parseInt(text.substr(0, colon).c_str(), r) ||
        !parseInt(text.substr(colon + 1).c_str(), s)) {
      error = "HDRT_TEST_KILL expects <rank>:<step>";
      return false;
    }
    o.killRank = static_cast<int>(r);
    o.killStep = s;
  }
  return true;
}

} // namespace hdrt::exec
