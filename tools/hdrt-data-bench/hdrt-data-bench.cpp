//===- hdrt-data-bench.cpp - how fast the runtime's readers read ----------===//
//
// Opens a data set as a training run does (the model's image shape) and
// reads whole samples on T threads, each its own run of samples, as the
// runtime's background reader does. Prints one JSON line: the format's
// description, the threads, and images per second. bench/data_bench.py
// drives it.
//
//   hdrt-data-bench PATH --shape C,H,W [--labels FILE] [--threads T]
//                   [--images K]
//
//===----------------------------------------------------------------------===//

#include "hdrt/data/Dataset.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace hdrt::data;

int main(int argc, char **argv) {
  std::string path, labels;
  ImageShape shape;
  int threads = 1;
  int64_t images = 256;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool value = i + 1 < argc;
    if (a == "--shape" && value &&
        std::sscanf(argv[++i], "%lld,%lld,%lld",
                    reinterpret_cast<long long *>(&shape.c),
                    reinterpret_cast<long long *>(&shape.h),
                    reinterpret_cast<long long *>(&shape.w)) == 3)
      continue;
    if (a == "--labels" && value)
      labels = argv[++i];
    else if (a == "--threads" && value)
      threads = std::max(1, std::atoi(argv[++i]));
    else if (a == "--images" && value)
      images = std::max(1, std::atoi(argv[++i]));
    else if (path.empty() && a[0] != '-')
      path = a;
    else {
      std::fprintf(stderr, "usage: hdrt-data-bench PATH --shape C,H,W "
                           "[--labels FILE] [--threads T] [--images K]\n");
      return 2;
    }
  }
  try {
    OpenOptions options;
    options.labels = labels;
    options.model = shape;
    std::unique_ptr<Dataset> set = openDataset(path, options);
    images = std::min(images, set->size());
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t)
      running.emplace_back([&, t] {
        std::vector<float> out(size_t(shape.volume()));
        for (int64_t i = images * t / threads; i < images * (t + 1) / threads;
             ++i)
          set->read(i, Region::whole(shape), out.data());
      });
    for (std::thread &t : running)
      t.join();
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    std::printf("{\"data\": \"%s\", \"threads\": %d, \"images\": %lld, "
                "\"images_per_s\": %.1f}\n",
                set->describe().c_str(), threads,
                static_cast<long long>(images), double(images) / seconds);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "hdrt-data-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
