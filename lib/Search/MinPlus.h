//===- MinPlus.h - the min-plus product of series elimination ---*- C++ -*-===//
//
// Eliminating a series node is a min-plus matrix product, the search's
// inner loop; the min-marginals' backward pass (MinMarginals.h) runs the
// same product on its transposes (transposedTable).
//
//===----------------------------------------------------------------------===//

#ifndef HD_LIB_SEARCH_MINPLUS_H
#define HD_LIB_SEARCH_MINPLUS_H

#include <vector>

namespace hd {

/// A row-major rows x cols table, transposed: a pair's table read from its
/// other end.
std::vector<double> transposedTable(const std::vector<double> &t, int rows,
                                    int cols);

/// merged[a][c] = min(merged[a][c], in[a][b] + self[b] + out[b][c] over b),
/// for a < ci, b < cj, c < ck, row-major; where a sum replaces the entry,
/// argmin[a][c] = b, the first b that attains it. Large products split their
/// rows over every core.
void minPlusProduct(int ci, int cj, int ck, const double *in,
                    const double *self, const double *out, double *merged,
                    int *argmin);

} // namespace hd

#endif // HD_LIB_SEARCH_MINPLUS_H
