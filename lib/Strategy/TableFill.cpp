//===- TableFill.cpp - computing the entries the search asks for ----------===//
//
// The grouped search asks for blocks of edge tables, not whole tables:
// entries are computed only as blocks need them, each distinct table's
// blocks together, on every core. A consumer's boxes depend only on its
// configuration and a producer's grid only on its own, so each is built
// once per column and per row of a fill.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/CostTables.h"

#include "ParallelFor.h"

#include <cmath>
#include <optional>

namespace hd {

std::vector<int> CostTables::missingColumns(const Table &t,
                                            const std::vector<int> &rows,
                                            const std::vector<int> &cols,
                                            int64_t &entries) {
  // One pass over the block: on later rounds of the grouped search nearly
  // all of it is computed, and this scan is most of what a fill costs.
  std::vector<char> missing(t.width, 0);
  for (int r : rows) {
    const std::vector<double> &row = t.rows[r];
    if (row.empty()) {
      entries += int64_t(cols.size());
      for (int c : cols)
        missing[c] = 1;
      continue;
    }
    for (int c : cols) {
      bool absent = std::isnan(row[c]);
      entries += absent;
      missing[c] |= absent;
    }
  }
  std::vector<int> out;
  for (int c : cols)
    if (missing[c])
      out.push_back(c);
  return out;
}

std::vector<ConsumerTiles> CostTables::allColumns(const Table &t) const {
  const LayerEdge &edge = edges[t.edge];
  const std::vector<ParallelConfig> &cols = candidates[edge.consumer];
  std::vector<ConsumerTiles> columns(cols.size());
  parallelFor(cols.size(), [&](size_t c) {
    columns[c] = consumerTiles(graph.layers[edge.consumer], edge.operand,
                               cols[c], model.getMachine().devicesPerNode);
  });
  return columns;
}

void CostTables::fillTable(Table &t, const std::vector<int> &rows,
                           const std::vector<int> &missing,
                           std::atomic<int64_t> &filled, int64_t total,
                           const std::vector<ConsumerTiles> *all) {
  if (missing.empty())
    return;
  const LayerEdge &edge = edges[t.edge];
  const Layer &producer = graph.layers[edge.producer];
  const Layer &consumer = graph.layers[edge.consumer];
  for (int r : rows)
    if (t.rows[r].empty())
      t.rows[r].assign(t.width, std::nan(""));
  // The consumer's boxes depend only on its configuration and the
  // producer's grid only on its own: compute each once per column and row.
  std::vector<ConsumerTiles> computed(all ? 0 : missing.size());
  parallelFor(computed.size(), [&](size_t i) {
    computed[i] = consumerTiles(consumer, edge.operand,
                                candidates[edge.consumer][missing[i]],
                                model.getMachine().devicesPerNode);
  });
  auto column = [&](size_t j) -> const ConsumerTiles & {
    return all ? (*all)[missing[j]] : computed[j];
  };
  parallelFor(rows.size(), [&](size_t i) {
    std::vector<double> &row = t.rows[rows[i]];
    std::optional<ProducerGrid> grid;
    for (size_t j = 0; j < missing.size(); ++j) {
      if (!std::isnan(row[missing[j]]))
        continue;
      if (!grid)
        grid = producerGrid(producer, candidates[edge.producer][rows[i]],
                            model.getMachine().devicesPerNode);
      row[missing[j]] = model.transferCost(*grid, column(j)).ms;
    }
    if (progress)
      progress(filled += missing.size(), total);
  });
}

void CostTables::fill(std::vector<EdgeBlock> &blocks) {
  assignTables();
  // Blocks of edges that share a table are filled together.
  std::map<int, std::pair<std::set<int>, std::set<int>>> wanted;
  for (const EdgeBlock &b : blocks) {
    auto &[rows, cols] = wanted[tableOf[b.edge]];
    rows.insert(b.rows.begin(), b.rows.end());
    cols.insert(b.cols.begin(), b.cols.end());
  }
  struct Work {
    int table;
    std::vector<int> rows, cols, missing;
  };
  std::vector<Work> work;
  int64_t total = 0;
  for (auto &[id, rowsCols] : wanted) {
    Work &w = work.emplace_back();
    w.table = id;
    w.rows.assign(rowsCols.first.begin(), rowsCols.first.end());
    w.cols.assign(rowsCols.second.begin(), rowsCols.second.end());
    w.missing = missingColumns(tables[id], w.rows, w.cols, total);
  }
  std::atomic<int64_t> filled{0};
  if (progress)
    progress(0, total);
  for (Work &w : work) {
    Table &t = tables[w.table];
    // Where either side has configurations outside the blocks, the
    // search asks for this table's bounds next: compute the consumer's
    // boxes once for both.
    const LayerEdge &edge = edges[t.edge];
    if (!t.boundsReady && (w.rows.size() < candidates[edge.producer].size() ||
                           w.cols.size() < candidates[edge.consumer].size())) {
      std::vector<ConsumerTiles> all = allColumns(t);
      prepareBounds(t, all);
      fillTable(t, w.rows, w.missing, filled, total, &all);
    } else {
      fillTable(t, w.rows, w.missing, filled, total);
    }
  }
  for (EdgeBlock &b : blocks) {
    const Table &t = tables[tableOf[b.edge]];
    b.costs.resize(b.rows.size() * b.cols.size());
    double *to = b.costs.data();
    for (int r : b.rows) {
      const double *row = t.rows[r].data();
      for (int c : b.cols)
        *to++ = row[c];
    }
  }
}

} // namespace hd
