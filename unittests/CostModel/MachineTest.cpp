//===- MachineTest.cpp - machine descriptions -----------------------------===//

#include "hd/CostModel/Machine.h"

#include <gtest/gtest.h>

using namespace hd;

namespace {
std::string errorOf(llvm::StringRef json) {
  llvm::Expected<Machine> m = parseMachine(json, "m.json");
  if (m)
    return "";
  return llvm::toString(m.takeError());
}

const char *valid = R"({"name": "lab", "nodes": 2, "devices_per_node": 4,
  "peak_gflops": 1000, "mem_gbps": 100, "mem_gib": 16, "launch_us": 5,
  "intra_node_gbps": 20, "inter_node_gbps": 10, "latency_us": 3})";
} // namespace

TEST(Machine, BuiltinsLoad) {
  for (const std::string &name : builtinMachineNames()) {
    llvm::Expected<Machine> m = loadMachine(name);
    ASSERT_TRUE(static_cast<bool>(m)) << name;
    EXPECT_EQ(m->name, name);
    // A built-in survives a round trip through its JSON form.
    llvm::Expected<Machine> again = parseMachine(machineToJSON(*m), "x");
    ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
    EXPECT_EQ(again->numDevices(), m->numDevices());
    EXPECT_EQ(again->interNodeGbps, m->interNodeGbps);
  }
  llvm::Expected<Machine> p100 = loadMachine("p100-cluster");
  EXPECT_EQ(p100->numDevices(), 16);
  EXPECT_EQ(p100->nodeOf(5), 1);
}

TEST(Machine, ValidFileParses) {
  EXPECT_EQ(errorOf(valid), "");
  llvm::Expected<Machine> m = parseMachine(valid, "m.json");
  EXPECT_EQ(m->deviceGbps, 20); // defaults to one link
  EXPECT_EQ(m->efficiency, 0.5);
}

TEST(Machine, CoresPerNodeIsOptionalAndRoundTrips) {
  EXPECT_EQ(parseMachine(valid, "m.json")->coresPerNode, 0);
  std::string shared = valid;
  shared.replace(shared.find("\"latency_us\": 3"), 15,
                 "\"latency_us\": 3, \"cores_per_node\": 2");
  llvm::Expected<Machine> m = parseMachine(shared, "m.json");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->coresPerNode, 2);
  EXPECT_EQ(parseMachine(machineToJSON(*m), "x")->coresPerNode, 2);
}

TEST(Machine, SyncOverlapIsOptionalBooleanAndRoundTrips) {
  EXPECT_FALSE(parseMachine(valid, "m.json")->syncOverlap);
  std::string overlapped = valid;
  overlapped.replace(overlapped.find("\"latency_us\": 3"), 15,
                     "\"latency_us\": 3, \"sync_overlap\": true");
  llvm::Expected<Machine> m = parseMachine(overlapped, "m.json");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_TRUE(m->syncOverlap);
  EXPECT_TRUE(parseMachine(machineToJSON(*m), "x")->syncOverlap);
  std::string bad = valid;
  bad.replace(bad.find("\"latency_us\": 3"), 15,
              "\"latency_us\": 3, \"sync_overlap\": 1");
  EXPECT_NE(errorOf(bad).find("'sync_overlap' must be true or false"),
            std::string::npos)
      << errorOf(bad);
}

TEST(Machine, CalibratedStragglersAndCopiesAreOptionalAndRoundTrip) {
  llvm::Expected<Machine> plain = parseMachine(valid, "m.json");
  EXPECT_EQ(plain->stragglerFraction, 0);
  EXPECT_EQ(plain->copyGbps, 0);
  std::string measured = valid;
  measured.replace(measured.find("\"latency_us\": 3"), 15,
                   "\"latency_us\": 3, \"straggler_fraction\": 0.02, "
                   "\"copy_gbps\": 12.5");
  llvm::Expected<Machine> m = parseMachine(measured, "m.json");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(m->stragglerFraction, 0.02);
  EXPECT_EQ(m->copyGbps, 12.5);
  llvm::Expected<Machine> again = parseMachine(machineToJSON(*m), "x");
  EXPECT_EQ(again->stragglerFraction, 0.02);
  EXPECT_EQ(again->copyGbps, 12.5);
}

TEST(Machine, AllReduceCurveParsesAndRoundTrips) {
  std::string curved = valid;
  curved.replace(curved.find("\"latency_us\": 3"), 15,
                 "\"latency_us\": 3, \"allreduce_curve\": [[1048576, 1.5], "
                 "[16777216, 3.0]]");
  llvm::Expected<Machine> m = parseMachine(curved, "m.json");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  ASSERT_EQ(m->allReduceCurve.size(), 2u);
  EXPECT_EQ(m->allReduceCurve[1].first, 16777216);
  EXPECT_EQ(m->allReduceCurve[1].second, 3.0);
  llvm::Expected<Machine> again = parseMachine(machineToJSON(*m), "x");
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(again->allReduceCurve, m->allReduceCurve);
  EXPECT_TRUE(parseMachine(valid, "m.json")->allReduceCurve.empty());
  // Not ascending, not positive, not pairs, empty: each refused.
  for (const char *bad : {"[[2, 1], [1, 1]]", "[[1, 0]]", "[[1, 1, 1]]", "[]",
                          "[[-4, 1]]", "3"}) {
    std::string t = valid;
    t.replace(t.find("\"latency_us\": 3"), 15,
              std::string("\"latency_us\": 3, \"allreduce_curve\": ") + bad);
    EXPECT_EQ(errorOf(t), "m.json: field 'allreduce_curve' must be a "
                          "non-empty list of [bytes, GB/s] pairs, bytes "
                          "ascending, both positive")
        << bad;
  }
}

TEST(Machine, ErrorsNameTheField) {
  std::string s = valid;
  auto with = [&](const std::string &from, const std::string &to) {
    std::string t = s;
    t.replace(t.find(from), from.size(), to);
    return errorOf(t);
  };
  EXPECT_EQ(with("\"nodes\": 2", "\"nodes\": 0"),
            "m.json: field 'nodes' must be a positive integer (at most 65536)");
  EXPECT_EQ(with("\"peak_gflops\": 1000", "\"peak_gflops\": -1"),
            "m.json: field 'peak_gflops' must be positive");
  EXPECT_EQ(with("\"peak_gflops\": 1000", "\"peak_gflop\": 1000"),
            "m.json: field 'peak_gflop' is unknown; did you mean "
            "'peak_gflops'?");
  EXPECT_EQ(with("\"mem_gib\": 16, ", ""),
            "m.json: field 'mem_gib' is missing");
  EXPECT_EQ(with("\"latency_us\": 3", "\"latency_us\": \"3\""),
            "m.json: field 'latency_us' must be a number");
  EXPECT_EQ(with("\"latency_us\": 3", "\"latency_us\": 3, \"efficiency\": 2"),
            "m.json: field 'efficiency' is a fraction of peak and must be at "
            "most 1");
  EXPECT_NE(with("\"latency_us\": 3",
                 "\"latency_us\": 3, \"device_gbps\": 5")
                .find("field 'device_gbps'"),
            std::string::npos);
  EXPECT_EQ(with("\"latency_us\": 3", "\"latency_us\": 3, \"cores_per_node\": 0"),
            "m.json: field 'cores_per_node' must be a positive integer (at "
            "most 65536)");
  EXPECT_EQ(with("\"latency_us\": 3",
                 "\"latency_us\": 3, \"straggler_fraction\": -0.1"),
            "m.json: field 'straggler_fraction' must be >= 0");
  EXPECT_EQ(with("\"latency_us\": 3", "\"latency_us\": 3, \"copy_gbps\": 0"),
            "m.json: field 'copy_gbps' must be positive");
  EXPECT_EQ(with("\"latency_us\": 3",
                 "\"latency_us\": 3, \"straggler_fraction\": 1.5"),
            "m.json: field 'straggler_fraction' is a fraction of a layer's "
            "time and must be at most 1");
  EXPECT_NE(errorOf("{\"name\": ").find("m.json: not valid JSON"),
            std::string::npos);
  EXPECT_EQ(errorOf("[1, 2]"),
            "m.json: a machine description must be a JSON object");
}

TEST(Machine, UnknownNameOrMissingFile) {
  llvm::Expected<Machine> m = loadMachine("tpu-pod");
  ASSERT_FALSE(static_cast<bool>(m));
  std::string msg = llvm::toString(m.takeError());
  EXPECT_NE(msg.find("neither a built-in (cpu, p100-cluster, h200-node)"),
            std::string::npos)
      << msg;
}
