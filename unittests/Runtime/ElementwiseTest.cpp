//===- ElementwiseTest.cpp - activations and binary functions -------------===//
//
// The CPU kernels of runtime/kernels/Activation/ and Binary/. Oracles: each
// activation and binary function written out in double from its textbook
// definition (not from the formulas in ActivationKernels.h or
// BinaryKernels.h), central finite differences of that for the gradients,
// and PyTorch's conventions at the kinks spelled out point by point.
//
//===----------------------------------------------------------------------===//

#include "kernels/Activation/ActivationKernels.h"
#include "kernels/Binary/BinaryKernels.h"

#include "CpuKernels.h"
#include "RandomBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace hdrt;

namespace {

using F = ActivationFunction;

double definition(const Activation &f, double x) {
  double a = f.alpha, b = f.beta;
  double sigmoid = 1 / (1 + std::exp(-x));
  switch (f.function) {
  case F::Clip:
    return std::min(std::max(x, a), b);
  case F::Sigmoid:
    return sigmoid;
  case F::HardSigmoid:
    return std::min(std::max(a * x + b, 0.0), 1.0);
  case F::HardSwish:
    return x * std::min(std::max(x + 3, 0.0), 6.0) / 6;
  case F::Silu:
    return x * sigmoid;
  case F::Gelu:
    return x * 0.5 * (1 + std::erf(x / std::sqrt(2.0)));
  }
  return 0;
}

std::vector<Activation> allFunctions() {
  return {{F::Clip, 0.f, 6.f},      {F::Sigmoid},
          {F::HardSigmoid, 0.2f, 0.5f}, {F::HardSigmoid, 1.f / 6, 0.5f},
          {F::HardSwish},           {F::Silu},
          {F::Gelu}};
}

} // namespace

TEST(Elementwise, ActivationsMatchTheirDefinitionsAndFiniteDifferences) {
  ActivationKernels &activation = cpuKernels<ActivationKernels>();
  std::mt19937 rng(5);
  // Inputs across every piece of each function: below, inside and above
  // the clip and hard ranges, and far out where the sigmoid saturates.
  auto x = randomBuffer(400, rng, -9, 9);
  auto dy = randomBuffer(x.size(), rng);
  for (const Activation &f : allFunctions()) {
    std::vector<float> y(x.size()), dx(x.size());
    activation.forward(f, x.size(), x.data(), y.data());
    activation.backward(f, x.size(), x.data(), dy.data(), dx.data());
    for (size_t i = 0; i < x.size(); ++i) {
      double want = definition(f, x[i]);
      EXPECT_NEAR(y[i], want, 1e-6 * (1 + std::abs(want)))
          << "function " << int(f.function) << " at " << x[i];
      // Away from a kink, a central difference is the derivative.
      double h = 1e-4;
      double lo = definition(f, x[i] - h), mid = definition(f, x[i]),
             hi = definition(f, x[i] + h);
      bool smooth = std::abs((hi - mid) - (mid - lo)) < 1e-6;
      if (!smooth)
        continue;
      double slope = (hi - lo) / (2 * h);
      EXPECT_NEAR(dx[i], dy[i] * slope, 1e-5 * (1 + std::abs(dy[i] * slope)))
          << "gradient of function " << int(f.function) << " at " << x[i];
    }
  }
}

TEST(Elementwise, GradientsAtTheKinksFollowPyTorch) {
  // PyTorch's choices where a derivative is undefined: hardtanh (ReLU6)
  // passes nothing at its bounds; hardsigmoid nothing at +-3; hardswish
  // (x/3 + 1/2) from -3 up to and including 3.
  struct Case {
    Activation f;
    float x, want;
  };
  std::vector<Case> cases = {
      {{F::Clip, 0.f, 6.f}, 0.f, 0.f},
      {{F::Clip, 0.f, 6.f}, 6.f, 0.f},
      {{F::Clip, 0.f, 6.f}, 3.f, 1.f},
      {{F::HardSigmoid, 1.f / 6, 0.5f}, -3.f, 0.f},
      {{F::HardSigmoid, 1.f / 6, 0.5f}, 3.f, 0.f},
      {{F::HardSwish}, -3.f, -0.5f},
      {{F::HardSwish}, 3.f, 1.5f},
      {{F::HardSwish}, -3.5f, 0.f},
      {{F::HardSwish}, 3.5f, 1.f},
  };
  for (const Case &c : cases) {
    float dy = 1, dx = -7;
    cpuKernels<ActivationKernels>().backward(c.f, 1, &c.x, &dy, &dx);
    EXPECT_FLOAT_EQ(dx, c.want)
        << "function " << int(c.f.function) << " at " << c.x;
  }
}

TEST(Elementwise, NaNStaysNaN) {
  float nan = std::nanf(""), y = 0;
  for (const Activation &f : allFunctions()) {
    cpuKernels<ActivationKernels>().forward(f, 1, &nan, &y);
    EXPECT_TRUE(std::isnan(y)) << "function " << int(f.function);
  }
}

TEST(Elementwise, BinaryMatchesDefinitionsAndFiniteDifferences) {
  BinaryKernels &binary = cpuKernels<BinaryKernels>();
  std::mt19937 rng(6);
  constexpr int64_t Rows = 6, Cols = 7;
  auto a = randomBuffer(Rows * Cols, rng),
       dOut = randomBuffer(Rows * Cols, rng);
  using B = BinaryFunction;
  auto definition = [](B f, double x, double y) {
    switch (f) {
    case B::Add:
      return x + y;
    case B::Sub:
      return x - y;
    case B::Mul:
      return x * y;
    case B::Div:
      return x / y;
    }
    return 0.0;
  };
  for (B f : {B::Add, B::Sub, B::Mul, B::Div})
    for (bool broadcast : {false, true}) {
      // Divisors away from zero, of either sign.
      auto b = randomBuffer(broadcast ? Rows : Rows * Cols, rng, 0.5, 2);
      for (size_t j = 0; j < b.size(); j += 2)
        b[j] = -b[j];
      auto rhs = [&](int64_t r, int64_t i) -> size_t {
        return size_t(broadcast ? r : r * Cols + i);
      };
      std::vector<float> out(a.size()), dA(a.size()), dB(b.size());
      binary.forward(f, Rows, Cols, broadcast, a.data(), b.data(), out.data());
      binary.backward(f, Rows, Cols, broadcast, a.data(), b.data(), dOut.data(),
                      dA.data(), dB.data());
      // Gradients of sum(dOut * out) by central differences, per element of
      // a, and per element of b summed over the elements that read it.
      const double h = 1e-4;
      std::vector<double> wantDB(b.size(), 0);
      for (int64_t r = 0; r < Rows; ++r)
        for (int64_t i = 0; i < Cols; ++i) {
          size_t k = size_t(r * Cols + i);
          double x = a[k], y = b[rhs(r, i)], g = dOut[k];
          EXPECT_NEAR(out[k], definition(f, x, y), 1e-6) << int(f);
          EXPECT_NEAR(dA[k],
                      g * (definition(f, x + h, y) - definition(f, x - h, y)) /
                          (2 * h),
                      1e-4)
              << int(f) << " broadcast " << broadcast;
          wantDB[rhs(r, i)] +=
              g * (definition(f, x, y + h) - definition(f, x, y - h)) / (2 * h);
        }
      for (size_t j = 0; j < b.size(); ++j)
        EXPECT_NEAR(dB[j], wantDB[j], 1e-4)
            << int(f) << " broadcast " << broadcast;

      // Null gradients are skipped: the images need none.
      binary.backward(f, Rows, Cols, broadcast, a.data(), b.data(), dOut.data(),
                      nullptr, dB.data());
      binary.backward(f, Rows, Cols, broadcast, a.data(), b.data(), dOut.data(),
                      dA.data(), nullptr);
    }
}

TEST(Elementwise, BroadcastScaleGradientsOfColumnSplitsAddUp) {
  // Tasks that split h or w each sum their columns; the backward transfer
  // adds the parts, which must make the whole row's sum.
  BinaryKernels &binary = cpuKernels<BinaryKernels>();
  std::mt19937 rng(7);
  constexpr int64_t Rows = 3, Cols = 10, Left = 4;
  auto a = randomBuffer(Rows * Cols, rng),
       dOut = randomBuffer(Rows * Cols, rng);
  auto b = randomBuffer(Rows, rng);
  std::vector<float> dA(a.size()), whole(Rows), parts(Rows, 0);
  binary.backward(BinaryFunction::Mul, Rows, Cols, true, a.data(), b.data(),
                  dOut.data(), dA.data(), whole.data());
  for (int64_t lo : {int64_t(0), Left}) {
    int64_t cols = lo ? Cols - Left : Left;
    std::vector<float> sa, sd, part(Rows);
    for (int64_t r = 0; r < Rows; ++r)
      for (int64_t i = lo; i < lo + cols; ++i) {
        sa.push_back(a[r * Cols + i]);
        sd.push_back(dOut[r * Cols + i]);
      }
    binary.backward(BinaryFunction::Mul, Rows, cols, true, sa.data(), b.data(),
                    sd.data(), nullptr, part.data());
    for (int64_t r = 0; r < Rows; ++r)
      parts[r] += part[r];
  }
  for (int64_t r = 0; r < Rows; ++r)
    EXPECT_NEAR(parts[r], whole[r], 1e-5);
}
