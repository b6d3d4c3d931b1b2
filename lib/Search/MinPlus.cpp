//===- MinPlus.cpp - the min-plus product of series elimination -----------===//

#include "MinPlus.h"

#include "hd/Support/VectorClones.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace hd {

namespace {

/// The plain loop of minPlusRows over rows [aBegin, aEnd) and columns
/// [cBegin, cEnd): what the register tiles leave at the edges.
[[gnu::always_inline]] inline void
minPlusPlain(int aBegin, int aEnd, int cBegin, int cEnd, int cj, int ck,
             const double *__restrict in, const double *__restrict self,
             const double *__restrict out, double *__restrict merged,
             int *__restrict argmin) {
  for (int a = aBegin; a < aEnd; ++a) {
    double *__restrict row = merged + static_cast<size_t>(a) * ck;
    int *__restrict arg = argmin + static_cast<size_t>(a) * ck;
    for (int b = 0; b < cj; ++b) {
      double base = in[static_cast<size_t>(a) * cj + b] + self[b];
      const double *__restrict e = out + static_cast<size_t>(b) * ck;
      for (int c = cBegin; c < cEnd; ++c) {
        double v = base + e[c];
        bool better = v < row[c];
        row[c] = better ? v : row[c];
        arg[c] = better ? b : arg[c];
      }
    }
  }
}

/// Rows [rowBegin, rowEnd) of the min-plus product that eliminates a series
/// node: merged[a][c] = min over b of in[a][b] + self[b] + out[b][c], with
/// argmin the first b that attains it.
HD_VECTOR_CLONES
void minPlusRows(int rowBegin, int rowEnd, int cj, int ck,
                 const double *__restrict in, const double *__restrict self,
                 const double *__restrict out, double *__restrict merged,
                 int *__restrict argmin) {
  // Tiles of kRows rows by kLanes columns stay in registers for the whole
  // loop over b, so each column strip of `out` is loaded once per kRows
  // rows and no partial minimum goes through memory. b rises, and only a
  // strictly smaller sum replaces: the first minimizing b, as in the plain
  // loop.
  using Doubles = double __attribute__((vector_size(64)));
  using Indices = int64_t __attribute__((vector_size(64)));
  constexpr int kRows = 4, kLanes = 8;
  int tiledRows = rowBegin + (rowEnd - rowBegin) / kRows * kRows;
  int tiledCols = ck / kLanes * kLanes;
  for (int c0 = 0; c0 < tiledCols; c0 += kLanes)
    for (int a0 = rowBegin; a0 < tiledRows; a0 += kRows) {
      Doubles best[kRows];
      Indices arg[kRows];
      for (int r = 0; r < kRows; ++r) {
        size_t at = static_cast<size_t>(a0 + r) * ck + c0;
        for (int l = 0; l < kLanes; ++l) {
          best[r][l] = merged[at + l];
          arg[r][l] = argmin[at + l];
        }
      }
      for (int b = 0; b < cj; ++b) {
        Doubles e;
        std::memcpy(&e, out + static_cast<size_t>(b) * ck + c0, sizeof e);
        Indices index = Indices{} + b;
        for (int r = 0; r < kRows; ++r) {
          Doubles v = (in[static_cast<size_t>(a0 + r) * cj + b] + self[b]) + e;
          Indices better = v < best[r];
          best[r] = better ? v : best[r];
          arg[r] = better ? index : arg[r];
        }
      }
      for (int r = 0; r < kRows; ++r) {
        size_t at = static_cast<size_t>(a0 + r) * ck + c0;
        for (int l = 0; l < kLanes; ++l) {
          merged[at + l] = best[r][l];
          argmin[at + l] = static_cast<int>(arg[r][l]);
        }
      }
    }
  minPlusPlain(tiledRows, rowEnd, 0, tiledCols, cj, ck, in, self, out, merged,
               argmin);
  minPlusPlain(rowBegin, rowEnd, tiledCols, ck, cj, ck, in, self, out, merged,
               argmin);
}

} // namespace

std::vector<double> transposedTable(const std::vector<double> &t, int rows,
                                    int cols) {
  std::vector<double> out(t.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[size_t(c) * rows + r] = t[size_t(r) * cols + c];
  return out;
}

void minPlusProduct(int ci, int cj, int ck, const double *in,
                    const double *self, const double *out, double *merged,
                    int *argmin) {
  // O(ci * cj * ck): split the rows over the cores when it is large.
  unsigned threads = static_cast<int64_t>(ci) * cj * ck < (1 << 22)
                         ? 1
                         : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, std::max(ci, 1));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(minPlusRows, ci * t / threads, ci * (t + 1) / threads, cj,
                      ck, in, self, out, merged, argmin);
  minPlusRows(0, ci / threads, cj, ck, in, self, out, merged, argmin);
  for (std::thread &t : pool)
    t.join();
}

} // namespace hd
