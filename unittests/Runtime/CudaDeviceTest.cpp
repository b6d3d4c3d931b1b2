//===- CudaDeviceTest.cpp - the CUDA device against the CPU device --------===//
//
// Every kernel set's CUDA implementation (runtime/kernels/*/ *Cuda.cu) and
// the CUDA device's own operations on random inputs, against the CPU
// device's (whose kernels are tested against direct loops and finite
// differences in KernelsTest, TileOpsTest, ChannelOpsTest and
// ElementwiseTest): tiles with per-side padding, every pooling mode, split
// batch norm and softmax. TF32 is off, so results agree to float rounding.
// Skipped, visibly, where there is no CUDA device.
//
//===----------------------------------------------------------------------===//

#include "kernels/Activation/ActivationKernels.h"
#include "kernels/Add/AddKernels.h"
#include "kernels/BatchNorm/BatchNormKernels.h"
#include "kernels/Binary/BinaryKernels.h"
#include "kernels/ChannelShuffle/ChannelShuffleKernels.h"
#include "kernels/Conv2d/Conv2dKernels.h"
#include "kernels/Dropout/DropoutKernels.h"
#include "kernels/LayerNorm/LayerNormKernels.h"
#include "kernels/Linear/LinearKernels.h"
#include "kernels/PerChannel/PerChannelKernels.h"
#include "kernels/Pool2d/Pool2dKernels.h"
#include "kernels/Relu/ReluKernels.h"
#include "kernels/Sgd/SgdKernels.h"
#include "kernels/SoftmaxCrossEntropy/SoftmaxCrossEntropyKernels.h"

#include "CpuKernels.h"
#include "RandomBuffer.h"

#include "hdrt/Device.h"

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdlib>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

using namespace hdrt;

namespace {

class CudaDeviceTest : public ::testing::Test {
protected:
  /// Skips only where there is no GPU to test (and HD_REQUIRE_GPU, which
  /// the GPU bundle sets, is not set); a GPU that cannot start its device
  /// (a broken driver, cuDNN, cuBLAS or NCCL) fails.
  void SetUp() override {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    bool none = e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
                (e == cudaSuccess && count == 0);
    if (none && !std::getenv("HD_REQUIRE_GPU"))
      GTEST_SKIP() << "skipped: no CUDA device ("
                   << (e == cudaSuccess ? "none found" : cudaGetErrorString(e))
                   << ")";
    try {
      DeviceOptions options;
      options.tf32 = false;
      gpu = makeCudaDevice(options);
    } catch (const DeviceError &error) {
      GTEST_FAIL() << "the CUDA device does not start: " << error.what();
    }
    cpu = &cpuDevice();
  }

  /// The same host data in both devices' memory.
  struct Pair {
    Buffer<float> onCpu, onGpu;
  };
  Pair pair(const std::vector<float> &host) {
    Pair p{Buffer<float>(*cpu, int64_t(host.size())),
           Buffer<float>(*gpu, int64_t(host.size()))};
    p.onCpu.upload(host.data());
    p.onGpu.upload(host.data());
    return p;
  }
  Pair random(size_t n, float lo = -1, float hi = 1) {
    return pair(randomBuffer(n, rng, lo, hi));
  }
  Pair zeros(size_t n) { return pair(std::vector<float>(n, 0.0f)); }

  /// Both results agree to `tolerance` relative to the larger magnitude.
  void expectSame(const Pair &p, float tolerance = 1e-4f) {
    std::vector<float> a(size_t(p.onCpu.size())), b(a.size());
    p.onCpu.download(a.data());
    p.onGpu.download(b.data());
    float scale = 1e-6f;
    for (float x : a)
      scale = std::max(scale, std::fabs(x));
    for (size_t i = 0; i < a.size(); ++i)
      ASSERT_NEAR(a[i], b[i], tolerance * scale) << "element " << i;
  }

  void checkBatchNorm(int64_t n, int64_t c, int64_t hw);

  std::mt19937 rng{7};
  Device *cpu = nullptr;
  std::unique_ptr<Device> gpu;
};

/// A convolution tile as a spatially split layer has it: halo on one side,
/// padding on the other.
Conv2dShape convTile(int64_t groups, int64_t padTop, int64_t padBottom,
                     int64_t stride, int64_t h) {
  Conv2dShape s;
  s.window = {2, 4, h, 7, 3, 3, stride, stride, padTop, 1, padBottom, 1, 1, 1};
  s.outChannels = 6;
  s.groups = groups;
  return s;
}

TEST_F(CudaDeviceTest, ConvolutionMatchesCpuWithAsymmetricPadding) {
  // Stride 2 over 8 rows with padding 1 and 0 never reaches a bottom
  // padding row: cuDNN pads symmetrically, without the padded copy; over 9
  // rows it would, and the copy is made.
  for (auto [groups, top, bottom, stride, h] :
       {std::tuple{1, 1, 1, 1, 9}, {1, 1, 0, 1, 9}, {1, 0, 1, 1, 9},
        {2, 1, 0, 1, 9}, {1, 1, 0, 2, 8}, {1, 1, 0, 2, 9}}) {
    Conv2dShape s = convTile(groups, top, bottom, stride, h);
    const Window2d &w = s.window;
    int64_t in = w.n * w.c * w.h * w.w,
            out = w.n * s.outChannels * w.outH() * w.outW(),
            weights = s.outChannels * (w.c / groups) * w.kh * w.kw;
    Pair x = random(in), k = random(weights), b = random(s.outChannels),
         y = zeros(out), dy = random(out), dx = zeros(in), dk = zeros(weights),
         db = zeros(s.outChannels);
    for (Device *d : {cpu, gpu.get()}) {
      bool g = d == gpu.get();
      auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
      Conv2dKernels &conv = kernelsOf<Conv2dKernels>(*d);
      conv.forward(s, at(x), at(k), at(b), at(y));
      conv.backwardData(s, at(dy), at(k), at(dx));
      conv.backwardWeights(s, at(x), at(dy), at(dk), at(db));
    }
    expectSame(y);
    expectSame(dx);
    expectSame(dk);
    expectSame(db);
  }
}

TEST_F(CudaDeviceTest, PoolingMatchesCpuInEveryMode) {
  for (auto [max, includePad, top, bottom] :
       {std::tuple{true, false, 1, 0}, {false, false, 1, 0},
        {false, true, 1, 1}, {true, false, 0, 1}}) {
    Pool2dShape s;
    s.window = {2, 3, 8, 9, 3, 3, 2, 2, top, 1, bottom, 1, 1, 1};
    s.max = max;
    s.countIncludePad = includePad;
    const Window2d &w = s.window;
    int64_t in = w.n * w.c * w.h * w.w, out = w.n * w.c * w.outH() * w.outW();
    Pair x = random(in), y = zeros(out), dy = random(out), dx = zeros(in);
    Pool2dKernels &cpuPool = kernelsOf<Pool2dKernels>(*cpu);
    Pool2dKernels &gpuPool = kernelsOf<Pool2dKernels>(*gpu);
    // Each device's workspace, as the executor gives it (the GPU's holds
    // the maxima's places; the CPU also runs without one).
    Buffer<uint8_t> places(*gpu, gpuPool.workspaceBytes(s));
    cpuPool.forward(s, x.onCpu.data(), y.onCpu.data(), /*workspace=*/nullptr);
    gpuPool.forward(s, x.onGpu.data(), y.onGpu.data(), places.data());
    cpuPool.backward(s, x.onCpu.data(), dy.onCpu.data(), dx.onCpu.data(),
                     /*workspace=*/nullptr);
    gpuPool.backward(s, x.onGpu.data(), dy.onGpu.data(), dx.onGpu.data(),
                     places.data());
    expectSame(y);
    expectSame(dx);
  }
}

TEST_F(CudaDeviceTest, LinearMatchesCpu) {
  int64_t n = 5, f = 37, k = 11;
  Pair x = random(n * f), w = random(k * f), b = random(k), y = zeros(n * k),
       dy = random(n * k), dx = zeros(n * f), dw = zeros(k * f), db = zeros(k);
  for (Device *d : {cpu, gpu.get()}) {
    bool g = d == gpu.get();
    auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
    LinearKernels &linear = kernelsOf<LinearKernels>(*d);
    linear.forward(n, f, k, at(x), at(w), at(b), at(y));
    linear.backwardData(n, f, k, at(dy), at(w), at(dx));
    linear.backwardWeights(n, f, k, at(x), at(dy), at(dw), at(db));
  }
  expectSame(y);
  expectSame(dx);
  expectSame(dw);
  expectSame(db);
}

TEST_F(CudaDeviceTest, ElementwiseLayersAndOptimizerMatchCpu) {
  int64_t n = 1000;
  std::vector<float> host = randomBuffer(size_t(n), rng);
  host[3] = std::numeric_limits<float>::quiet_NaN(); // ReLU keeps NaN
  Pair x = pair(host), x2 = random(n), y = zeros(n), dy = random(n),
       dx = zeros(n), sum = zeros(n), drop = zeros(n);
  TileRegion tile;
  tile.rank = 2;
  tile.shape[0] = 40;
  tile.shape[1] = 50;
  tile.lo[0] = 10;
  tile.hi[0] = 30;
  tile.lo[1] = 0;
  tile.hi[1] = 50;
  for (Device *d : {cpu, gpu.get()}) {
    bool g = d == gpu.get();
    auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
    kernelsOf<ReluKernels>(*d).forward(n, at(x), at(y));
    kernelsOf<ReluKernels>(*d).backward(n, at(x), at(dy), at(dx));
    kernelsOf<AddKernels>(*d).forward(n, at(x2), at(dy), at(sum),
                                      /*relu=*/false);
    kernelsOf<DropoutKernels>(*d).apply(tile, 3, 9, 0.4f, at(x2), at(drop));
    for (bool nesterov : {false, true})
      kernelsOf<SgdKernels>(*d).update(n, 0.1f, 0.9f, 5e-4f, nesterov, at(x2),
                                       at(dy), at(sum));
  }
  std::vector<float> a(static_cast<size_t>(n)), b(a.size());
  y.onCpu.download(a.data());
  y.onGpu.download(b.data());
  EXPECT_TRUE(std::isnan(a[3]) && std::isnan(b[3]));
  a[3] = b[3] = 0;
  y.onCpu.upload(a.data());
  y.onGpu.upload(b.data());
  expectSame(y);
  expectSame(dx);
  expectSame(sum);
  expectSame(drop);
  expectSame(x2);
  EXPECT_FALSE(gpu->allFinite(x.onGpu.data(), n));
  EXPECT_TRUE(gpu->allFinite(x2.onGpu.data(), n));
}

TEST_F(CudaDeviceTest, ActivationsAndBinaryFunctionsMatchCpu) {
  // 40 rows of 600 columns: the broadcast gradient's row sums span blocks.
  int64_t rows = 40, cols = 600, n = rows * cols;
  Pair x = random(n), dy = random(n), full = random(n, 0.5, 2),
       perRow = random(rows, 0.5, 2);
  for (Activation f : {Activation{ActivationFunction::Clip, 0, 6},
                       Activation{ActivationFunction::HardSwish},
                       Activation{ActivationFunction::Gelu}}) {
    Pair y = zeros(n), dx = zeros(n);
    for (Device *d : {cpu, gpu.get()}) {
      bool g = d == gpu.get();
      auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
      ActivationKernels &activation = kernelsOf<ActivationKernels>(*d);
      activation.forward(f, n, at(x), at(y));
      activation.backward(f, n, at(x), at(dy), at(dx));
    }
    expectSame(y);
    expectSame(dx);
  }
  for (BinaryFunction f : {BinaryFunction::Add, BinaryFunction::Sub,
                           BinaryFunction::Mul, BinaryFunction::Div})
    for (bool broadcast : {false, true}) {
      Pair &b = broadcast ? perRow : full;
      Pair y = zeros(n), dA = zeros(n), dB = zeros(broadcast ? rows : n);
      for (Device *d : {cpu, gpu.get()}) {
        bool g = d == gpu.get();
        auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
        BinaryKernels &binary = kernelsOf<BinaryKernels>(*d);
        binary.forward(f, rows, cols, broadcast, at(x), at(b), at(y));
        binary.backward(f, rows, cols, broadcast, at(x), at(b), at(dy), at(dA),
                        at(dB));
      }
      expectSame(y);
      expectSame(dA);
      expectSame(dB);
    }
}

TEST_F(CudaDeviceTest, BatchNormMatchesCpu) {
  // A channel of 3 * 3000 values is reduced in three slices.
  for (int64_t hw : {17, 3000})
    checkBatchNorm(3, 5, hw);
}

void CudaDeviceTest::checkBatchNorm(int64_t n, int64_t c, int64_t hw) {
  int64_t count = 2 * n * hw; // as if split in two
  Pair x = random(n * c * hw), dy = random(n * c * hw), scale = random(c),
       shift = random(c), mean = zeros(c), invStd = zeros(c),
       y = zeros(n * c * hw), dx = zeros(n * c * hw), dScale = zeros(c),
       dShift = zeros(c), runningMean = random(c), runningVar = random(c, 0, 2),
       runningInvStd = zeros(c);
  Buffer<double> sumsCpu(*cpu, 2 * c), sumsGpu(*gpu, 2 * c);
  for (Device *d : {cpu, gpu.get()}) {
    bool g = d == gpu.get();
    auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
    double *sums = g ? sumsGpu.data() : sumsCpu.data();
    BatchNormKernels &bn = kernelsOf<BatchNormKernels>(*d);
    bn.partialSums(n, c, hw, /*block=*/1, at(x), sums);
    bn.statistics(c, count, 1e-5, sums, at(mean), at(invStd));
    bn.runningUpdate(c, count, 0.9, sums, at(runningMean), at(runningVar));
    bn.runningInvStd(c, 1e-5, at(runningVar), at(runningInvStd));
    bn.forward(n, c, hw, /*block=*/1, at(x), at(mean), at(invStd), at(scale),
               at(shift), at(y), /*relu=*/false);
    bn.backwardPartialSums(n, c, hw, /*block=*/1, at(x), at(dy), at(mean),
                           at(invStd), sums);
    bn.paramGrads(c, sums, at(dScale), at(dShift));
    bn.backwardData(n, c, hw, /*block=*/1, count, at(x), at(dy), at(mean),
                    at(invStd), at(scale), sums, at(dx));
  }
  expectSame(mean);
  expectSame(invStd);
  expectSame(runningMean);
  expectSame(runningVar);
  expectSame(runningInvStd);
  expectSame(y);
  expectSame(dScale);
  expectSame(dShift);
  expectSame(dx);
}

TEST_F(CudaDeviceTest, LayerNormAndChannelShuffleMatchCpu) {
  // 700 pixels of 24 channels, as a tile holding 24 of 48 channels.
  int64_t n = 2, c = 24, hw = 350, channels = 48, pixels = n * hw;
  Pair x = random(n * c * hw), dy = random(n * c * hw), scale = random(c),
       shift = random(c), mean = zeros(pixels), invStd = zeros(pixels),
       y = zeros(n * c * hw), dx = zeros(n * c * hw), dScale = zeros(c),
       dShift = zeros(c), shuffled = zeros(n * c * hw);
  // Sums as if the other half of the channels held the same values.
  Buffer<double> sumsCpu(*cpu, 2 * pixels), sumsGpu(*gpu, 2 * pixels);
  std::vector<double> host(size_t(2 * pixels));
  for (Device *d : {cpu, gpu.get()}) {
    bool g = d == gpu.get();
    auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
    LayerNormKernels &ln = kernelsOf<LayerNormKernels>(*d);
    Buffer<double> &sums = g ? sumsGpu : sumsCpu;
    auto doubled = [&] {
      sums.download(host.data());
      for (double &v : host)
        v *= 2;
      sums.upload(host.data());
    };
    ln.partialSums(n, c, hw, at(x), sums.data());
    doubled();
    ln.forward(n, c, hw, channels, 1e-6, sums.data(), at(x), at(scale),
               at(shift), at(mean), at(invStd), at(y));
    ln.backwardPartialSums(n, c, hw, at(x), at(dy), at(mean), at(invStd),
                           at(scale), sums.data());
    doubled();
    ln.backward(n, c, hw, channels, at(x), at(dy), at(mean), at(invStd),
                at(scale), sums.data(), at(dx), at(dScale), at(dShift));
    kernelsOf<ChannelShuffleKernels>(*d).shuffle(n, c, hw, 3, at(x),
                                                 at(shuffled));
  }
  expectSame(mean);
  expectSame(invStd);
  expectSame(y);
  expectSame(dScale);
  expectSame(dShift);
  expectSame(dx);
  expectSame(shuffled, 0);
}

TEST_F(CudaDeviceTest, SoftmaxCrossEntropyMatchesCpu) {
  int64_t n = 6, k = 300, offset = 100, batch = 12;
  std::vector<int32_t> labels = {0, 150, 399, 250, 101, 120};
  Buffer<int32_t> labelsCpu(*cpu, n), labelsGpu(*gpu, n);
  labelsCpu.upload(labels.data());
  labelsGpu.upload(labels.data());
  Buffer<double> sumCpu(*cpu, n), sumGpu(*gpu, n);
  Buffer<double> lossCpu(*cpu, 1), lossGpu(*gpu, 1);
  Pair logits = random(n * k, -5, 5), max = zeros(n), dLogits = zeros(n * k);
  double loss[2];
  for (Device *d : {cpu, gpu.get()}) {
    bool g = d == gpu.get();
    auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
    double *sum = g ? sumGpu.data() : sumCpu.data();
    const int32_t *l = g ? labelsGpu.data() : labelsCpu.data();
    SoftmaxCrossEntropyKernels &sce = kernelsOf<SoftmaxCrossEntropyKernels>(*d);
    sce.partialMax(n, k, at(logits), at(max));
    sce.partialSum(n, k, at(logits), at(max), sum);
    Buffer<double> &tileLoss = g ? lossGpu : lossCpu;
    sce.partialLoss(n, k, offset, at(logits), l, at(max), sum, tileLoss.data());
    tileLoss.download(&loss[g]);
    sce.backward(n, k, offset, batch, at(logits), l, at(max), sum, at(dLogits));
  }
  EXPECT_NEAR(loss[0], loss[1], 1e-6 * std::fabs(loss[0]));
  expectSame(max);
  expectSame(dLogits);
}

TEST_F(CudaDeviceTest, RegionsRowsAndChannelsMatchCpu) {
  Box src, dst, region;
  src.rank = dst.rank = region.rank = 4;
  int64_t s0[4] = {0, 0, 2, 3}, s1[4] = {2, 4, 9, 8};
  int64_t d0[4] = {0, 1, 0, 0}, d1[4] = {2, 5, 6, 6};
  int64_t r0[4] = {0, 1, 2, 3}, r1[4] = {2, 4, 6, 6};
  for (int d = 0; d < 4; ++d) {
    src.lo[d] = s0[d], src.hi[d] = s1[d];
    dst.lo[d] = d0[d], dst.hi[d] = d1[d];
    region.lo[d] = r0[d], region.hi[d] = r1[d];
  }
  Pair from = random(size_t(src.volume())), to = random(size_t(dst.volume())),
       added = random(size_t(dst.volume())), rows = zeros(40),
       filled = zeros(2 * 3 * 5), sums = zeros(3), bias = random(3);
  // A concatenation's operand: channels 4..8 of 12, runs of 2048 floats,
  // which the GPU copies as one strided copy.
  Box operand, concat;
  operand.rank = concat.rank = 4;
  int64_t o0[4] = {0, 4, 0, 0}, o1[4] = {2, 8, 16, 32};
  for (int d = 0; d < 4; ++d) {
    operand.lo[d] = o0[d], operand.hi[d] = o1[d];
    concat.lo[d] = 0, concat.hi[d] = d == 1 ? 12 : o1[d];
  }
  Pair part = random(size_t(operand.volume())),
       whole = random(size_t(concat.volume()));
  for (Device *d : {cpu, gpu.get()}) {
    bool g = d == gpu.get();
    auto at = [&](Pair &p) { return g ? p.onGpu.data() : p.onCpu.data(); };
    d->copyRegion(at(part), operand, at(whole), concat, operand);
    d->copyRegion(at(from), src, at(to), dst, region);
    d->addRegion(at(from), src, at(added), dst, region);
    d->copyRows(at(rows) + 1, 8, at(from), 11, 5, 6);
    PerChannelKernels &perChannel = kernelsOf<PerChannelKernels>(*d);
    perChannel.fill(2, 3, 5, at(bias), at(filled));
    perChannel.sum(2, 3, 5, at(filled), at(sums));
  }
  expectSame(whole);
  expectSame(to);
  expectSame(added);
  expectSame(rows);
  expectSame(filled);
  expectSame(sums);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
