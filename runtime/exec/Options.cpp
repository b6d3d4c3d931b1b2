//===- Options.cpp - the compiled program's command line ------------------===//
//
// One table: each flag, its value, its help line and what it sets. The
// usage is printed from the same table, so the two cannot disagree.
//
// Over 400 lines because the table holds every flag of a program (about
// thirty-five), which reads best as one list; the parsing around it is
// short.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>

namespace hdrt::exec {

namespace {

/// The mode `--overlap-sync` names (on, off, auto); nullopt for another.
std::optional<DeviceOptions::SyncOverlap>
parseSyncOverlap(const std::string &mode) {
  using Overlap = DeviceOptions::SyncOverlap;
  if (mode == "auto")
    return Overlap::Auto;
  if (mode == "on")
    return Overlap::On;
  if (mode == "off")
    return Overlap::Off;
  return std::nullopt;
}

bool parseInt(const std::string &text, int64_t &out) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || end == text.c_str() || *end)
    return false;
  out = v;
  return true;
}

bool parseDouble(const std::string &text, double &out) {
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno || end == text.c_str() || *end || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ','))
    parts.push_back(part);
  return parts;
}

/// Sets an option from its value (empty for a switch); false with a
/// message on a bad value.
using Setter =
    std::function<bool(const std::string &flag, const std::string &value,
                       Options &o, std::string &error)>;

struct Flag {
  const char *name;
  const char *value; // its placeholder in the usage; null for a switch
  const char *help;
  Setter set;
};

Setter integer(int64_t Options::*field, int64_t min) {
  return [=](const std::string &flag, const std::string &v, Options &o,
             std::string &error) {
    if (!parseInt(v, o.*field) || o.*field < min) {
      error = flag + " expects an integer >= " + std::to_string(min) +
              ", got '" + v + "'";
      return false;
    }
    return true;
  };
}

Setter real(double Options::*field) {
  return [=](const std::string &flag, const std::string &v, Options &o,
             std::string &error) {
    if (!parseDouble(v, o.*field) || o.*field < 0) {
      error = flag + " expects a finite number >= 0, got '" + v + "'";
      return false;
    }
    return true;
  };
}

Setter text(std::string Options::*field) {
  return [=](const std::string &, const std::string &v, Options &o,
             std::string &) {
    o.*field = v;
    return true;
  };
}

Setter flagSwitch(bool Options::*field) {
  return
      [=](const std::string &, const std::string &, Options &o, std::string &) {
        o.*field = true;
        return true;
      };
}

/// A MODE of `on` or `off`.
Setter onOff(bool Options::*field) {
  return [=](const std::string &flag, const std::string &value, Options &o,
             std::string &error) {
    if (value != "on" && value != "off") {
      error = flag + " takes on or off, not '" + value + "'";
      return false;
    }
    o.*field = value == "on";
    return true;
  };
}

/// A comma-separated list of numbers, each > 0 when `positive`.
Setter numbers(std::vector<double> Options::*field, bool positive) {
  return [=](const std::string &flag, const std::string &v, Options &o,
             std::string &error) {
    (o.*field).clear();
    for (const std::string &part : splitList(v)) {
      double x;
      if (!parseDouble(part, x) || (positive && x <= 0)) {
        error = flag + " expects numbers" + (positive ? " > 0" : "") +
                " separated by commas, got '" + v + "'";
        return false;
      }
      (o.*field).push_back(x);
    }
    if ((o.*field).empty()) {
      error = flag + " expects at least one number";
      return false;
    }
    return true;
  };
}

const std::vector<Flag> &flags() {
  static const std::vector<Flag> table = {
      {"--steps", "K", "train until step K (default 10)",
       [](const std::string &f, const std::string &v, Options &o,
          std::string &e) {
         o.stepsGiven = true;
         return integer(&Options::steps, 0)(f, v, o, e);
       }},
      {"--epochs", "E", "train for E passes over --data (instead of --steps)",
       [](const std::string &f, const std::string &v, Options &o,
          std::string &e) {
         if (!real(&Options::epochs)(f, v, o, e))
           return false;
         if (o.epochs > 0)
           return true;
         e = f + " expects a number > 0, got '" + v + "'";
         return false;
       }},
      {"--seed", "S",
       "seed of weights, data order, augmentation and dropout "
       "(default 1)",
       [](const std::string &f, const std::string &v, Options &o,
          std::string &e) {
         int64_t seed = 0;
         if (!parseInt(v, seed) || seed < 0) {
           e = f + " expects an integer >= 0, got '" + v + "'";
           return false;
         }
         o.seed = uint64_t(seed);
         return true;
       }},
      {"--lr", "X", "learning rate (default 0.01)", real(&Options::lr)},
      {"--momentum", "X", "SGD momentum (default 0.9)",
       real(&Options::momentum)},
      {"--nesterov", nullptr, "Nesterov momentum",
       flagSwitch(&Options::nesterov)},
      {"--weight-decay", "X", "SGD weight decay (default 5e-4)",
       real(&Options::weightDecay)},
      {"--lr-schedule", "S",
       "constant (default), step (x gamma at each milestone) or cosine",
       [](const std::string &f, const std::string &v, Options &o,
          std::string &e) {
         if (v == "constant")
           o.schedule = LrSchedule::Constant;
         else if (v == "step")
           o.schedule = LrSchedule::Step;
         else if (v == "cosine")
           o.schedule = LrSchedule::Cosine;
         else {
           e = f + " expects constant, step or cosine, got '" + v + "'";
           return false;
         }
         return true;
       }},
      {"--lr-milestones", "A,B",
       "step schedule: the steps where the rate "
       "drops (default: half and three quarters "
       "of the steps)",
       [](const std::string &f, const std::string &v, Options &o,
          std::string &e) {
         o.milestones.clear();
         for (const std::string &part : splitList(v)) {
           int64_t step;
           if (!parseInt(part, step) || step < 1) {
             e = f + " expects steps >= 1 separated by commas, got '" + v + "'";
             return false;
           }
           o.milestones.push_back(step);
         }
         return true;
       }},
      {"--lr-gamma", "X",
       "step schedule: the factor at each milestone "
       "(default 0.1)",
       real(&Options::gamma)},
      {"--warmup", "K", "raise the rate linearly over the first K steps",
       integer(&Options::warmup, 0)},
      {"--data", "PATH",
       "training data: IDX (.gz), .npy, an image folder, or hd's raw "
       "format; synthetic without it",
       text(&Options::data)},
      {"--labels", "FILE", "labels of --data (IDX or .npy)",
       text(&Options::labels)},
      {"--mean", "A,B,C", "subtract per channel, after uint8 -> [0, 1]",
       numbers(&Options::mean, false)},
      {"--std", "A,B,C", "then divide per channel",
       numbers(&Options::std, true)},
      {"--shuffle", nullptr, "a seeded permutation of --data every epoch",
       flagSwitch(&Options::shuffle)},
      {"--augment", "flip,crop[=P]",
       "random horizontal flips, random crops with P (default 4) pixels of "
       "padding",
       [](const std::string &f, const std::string &v, Options &o,
          std::string &e) {
         for (const std::string &part : splitList(v)) {
           int64_t padding = 4;
           if (part == "flip") {
             o.flip = true;
           } else if (part == "crop" ||
                      (part.rfind("crop=", 0) == 0 &&
                       parseInt(part.substr(5), padding) && padding >= 0)) {
             o.cropPadding = padding;
           } else {
             e = f + " expects flip and crop[=P] separated by commas, got '" +
                 v + "'";
             return false;
           }
         }
         return true;
       }},
      {"--data-threads", "T",
       "threads that read and decode a batch, ahead "
       "of its step (default: the rank's share of "
       "the cores)",
       integer(&Options::dataThreads, 1)},
      {"--eval-data", "PATH", "evaluate on this data (same formats)",
       text(&Options::evalData)},
      {"--eval-labels", "FILE", "labels of --eval-data",
       text(&Options::evalLabels)},
      {"--eval-every", "K", "evaluate every K steps (and after the last)",
       integer(&Options::evalEvery, 1)},
      {"--init", "FILE",
       "start from the weights of an ONNX model or an hd "
       "checkpoint",
       text(&Options::init)},
      {"--export-onnx", "FILE",
       "at the end, write the model as ONNX with "
       "the trained weights",
       text(&Options::exportOnnx)},
      {"--metrics", "FILE",
       "write per-step losses, evaluations and timings "
       "as JSON",
       text(&Options::metrics)},
      {"--checkpoint", "DIR",
       "save parameters and optimizer state at the "
       "end",
       text(&Options::checkpoint)},
      {"--checkpoint-every", "N", "also save every N steps",
       integer(&Options::checkpointEvery, 1)},
      {"--resume", nullptr, "continue from DIR/checkpoint.hd",
       flagSwitch(&Options::resume)},
      {"--trace", "FILE", "write a Chrome/Perfetto trace of the last step",
       text(&Options::trace)},
      {"--log-every", "K", "print every K-th step's line (default 1)",
       integer(&Options::logEvery, 1)},
      {"--quiet", nullptr,
       "no step, data or weights lines (epochs and "
       "evaluations still print)",
       flagSwitch(&Options::quiet)},
      {"--overlap-sync", "MODE",
       "CPU: gradient sums beside the backward pass on a thread of their "
       "own: on, off, or auto (default: where each rank has two cores or "
       "more)",
       [](const std::string &flag, const std::string &value, Options &o,
          std::string &error) {
         std::optional<DeviceOptions::SyncOverlap> mode =
             parseSyncOverlap(value);
         if (!mode)
           error = flag + " takes on, off or auto, not '" + value + "'";
         else
           o.device.overlapSync = *mode;
         return mode.has_value();
       }},
      {"--blocked-layouts", "MODE",
       "CPU: keep activations in oneDNN's blocked layout between layers "
       "that all take it (default on); off keeps NCHW throughout",
       onOff(&Options::blockedLayouts)},
      {"--early-transfers", "MODE",
       "CPU: post each transfer's receives before its data exist and its "
       "sends as soon as they do (default on); off runs each transfer whole "
       "where the program reads it",
       onOff(&Options::earlyTransfers)},
      {"--conv-algorithms", "MODE",
       "GPU: find (default: time cuDNN's algorithms once per convolution "
       "shape, as PyTorch's cudnn.benchmark) or heuristic (cuDNN's first "
       "guess, no timing at start)",
       [](const std::string &flag, const std::string &value, Options &o,
          std::string &error) {
         if (value != "find" && value != "heuristic") {
           error = flag + " takes find or heuristic, not '" + value + "'";
           return false;
         }
         o.device.findConvAlgorithms = value == "find";
         return true;
       }},
      {"--log-conv-algorithms", nullptr,
       "GPU: print each convolution shape's algorithms, times and workspace",
       [](const std::string &, const std::string &, Options &o, std::string &) {
         o.device.logConvAlgorithms = true;
         return true;
       }},
      {"--watchdog", "SECONDS",
       "GPU: end the job with an error when a wait on the GPU lasts longer "
       "(a peer rank gone, collectives out of order; default 50, 0: never)",
       [](const std::string &flag, const std::string &value, Options &o,
          std::string &error) {
         double seconds = -1;
         if (!parseDouble(value, seconds) || seconds < 0) {
           error =
               flag + " expects a number of seconds >= 0, got '" + value + "'";
           return false;
         }
         o.device.watchdogSeconds = seconds;
         return true;
       }},
      {"--no-tf32", nullptr,
       "GPU: full fp32 convolutions (TF32 tensor cores are allowed by "
       "default, as in PyTorch)",
       [](const std::string &, const std::string &, Options &o, std::string &) {
         o.device.tf32 = false;
         return true;
       }},
  };
  return table;
}

/// Checks between flags, once all are read.
bool consistent(const Options &o, std::string &error) {
  if (o.resume && o.checkpoint.empty())
    error = "--resume needs --checkpoint DIR to read from";
  else if (o.checkpointEvery && o.checkpoint.empty())
    error = "--checkpoint-every needs --checkpoint DIR";
  else if (o.epochs > 0 && o.stepsGiven)
    error = "give --steps or --epochs, not both";
  else if (o.epochs > 0 && o.data.empty())
    error = "--epochs needs --data: an epoch is one pass over it";
  else if (!o.labels.empty() && o.data.empty())
    error = "--labels needs --data";
  else if (!o.evalLabels.empty() && o.evalData.empty())
    error = "--eval-labels needs --eval-data";
  else if (o.evalEvery && o.evalData.empty())
    error = "--eval-every needs --eval-data";
  else if ((o.shuffle || o.flip || o.cropPadding >= 0) && o.data.empty())
    error = "--shuffle and --augment need --data";
  else if (!o.std.empty() && o.mean.empty())
    error = "--std needs --mean";
  else if (!o.mean.empty() && !o.std.empty() && o.mean.size() != o.std.size())
    error = "--mean and --std need one value per channel each";
  else if (o.resume && !o.init.empty())
    error = "give --init or --resume, not both: a resumed run continues "
            "from its checkpoint";
  else if (!o.milestones.empty() && o.schedule != LrSchedule::Step)
    error = "--lr-milestones needs --lr-schedule step";
  return error.empty();
}

} // namespace

std::string usage(const char *program) {
  std::string text =
      std::string("usage: mpirun -np <devices> ") + program + " [options]\n";
  for (const Flag &f : flags()) {
    std::string left = std::string("  ") + f.name;
    if (f.value)
      left += std::string(" ") + f.value;
    left.resize(std::max<size_t>(left.size() + 1, 23), ' ');
    text += left + f.help + "\n";
  }
  return text;
}

bool parseOptions(int argc, char **argv, Options &o, bool &help,
                  std::string &error) {
  help = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], value;
    bool inlineValue = false;
    if (size_t eq = flag.find('=');
        flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inlineValue = true;
    }
    if (flag == "--help" || flag == "-h") {
      help = true;
      continue;
    }
    const Flag *spec = nullptr;
    for (const Flag &f : flags())
      if (flag == f.name)
        spec = &f;
    if (!spec) {
      error = "unknown option '" + std::string(argv[i]) + "'";
      return false;
    }
    if (!spec->value && inlineValue) {
      // A switch takes no value: --shuffle=0 would read as on.
      error = flag + " is a switch and takes no value; leave it out to "
                     "turn it off";
      return false;
    }
    if (spec->value && !inlineValue) {
      if (i + 1 >= argc) {
        error = flag + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    if (!spec->set(flag, value, o, error))
      return false;
  }
  if (!consistent(o, error))
    return false;
  // Test hook, from the environment so it never shows in the usage.
  if (const char *kill = std::getenv("HDRT_TEST_KILL")) {
    int64_t r = -1, s = -1;
    std::string text = kill;
    size_t colon = text.find(':');
    if (colon == std::string::npos || !parseInt(text.substr(0, colon), r) ||
        !parseInt(text.substr(colon + 1), s)) {
      error = "HDRT_TEST_KILL expects <rank>:<step>";
      return false;
    }
    o.killRank = static_cast<int>(r);
    o.killStep = s;
  }
  if (const char *drop = std::getenv("HDRT_TEST_DROP")) {
    std::string what = drop;
    o.dropGradientSyncs = what == "sync";
    o.dropTransferGradients = what == "transfer";
    if (!o.dropGradientSyncs && !o.dropTransferGradients) {
      error = "HDRT_TEST_DROP expects sync or transfer";
      return false;
    }
  }
  return true;
}

} // namespace hdrt::exec
