//===- CostTables.cpp - cost tables of a layer graph for the search -------===//

#include "hd/Strategy/CostTables.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace hd {

static std::string candidatesKey(const std::vector<ParallelConfig> &configs) {
  std::ostringstream os;
  for (const ParallelConfig &c : configs) {
    for (int64_t d : c.degrees)
      os << d << ",";
    os << ";";
  }
  return os.str();
}

static std::string shapeKey(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  for (int64_t d : shape)
    os << d << "x";
  return os.str();
}

CostTables::CostTables(const CostModel &model, const LayerGraph &graph,
                       std::vector<std::vector<ParallelConfig>> candidates,
                       double syncWeight)
    : model(model), graph(graph), candidates(std::move(candidates)),
      syncWeight(syncWeight), edgesOf(graph.layers.size()),
      readers(graph.layers.size(), 0) {
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    const Layer &layer = graph.layers[l];
    // A layer fed only by graph inputs skips its backward-data pass, and
    // one whose producer has other readers adds its gradient into theirs:
    // neither shows in the signature.
    std::string inputs;
    for (const LayerInput &in : layer.inputs)
      inputs += in.producer < 0 ? "g" : "l" + std::to_string(in.producerReaders);
    nodeKeys.push_back(layer.signature + "|" + inputs + "|" +
                       candidatesKey(this->candidates[l]));
    for (unsigned i = 0; i < layer.inputs.size(); ++i) {
      int p = layer.inputs[i].producer;
      if (p < 0)
        continue;
      int e = static_cast<int>(edges.size());
      edges.push_back({p, static_cast<int>(l), i});
      edgesOf[p].push_back(e);
      edgesOf[l].push_back(e);
      ++readers[p];
    }
  }
  edgeKeys.resize(edges.size()); // Computed when tables are (edgeKey).
  // Groups: candidates with the same task count and channel degree, most
  // tasks first. They cost about the same (the same compute per task and
  // the same replicas), so a group's cheapest member stands in well for
  // the others.
  for (const std::vector<ParallelConfig> &configs : this->candidates) {
    auto keyOf = [](const ParallelConfig &c) {
      return std::make_pair(-c.tasks(),
                            c.degrees.size() > 1 ? c.degrees[1] : 1);
    };
    std::vector<std::pair<int64_t, int64_t>> keys;
    for (const ParallelConfig &c : configs)
      keys.push_back(keyOf(c));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<int64_t> &tasks = groupTasks.emplace_back();
    for (auto [negTasks, channels] : keys)
      tasks.push_back(-negTasks);
    std::vector<int> &group = groupOf.emplace_back();
    for (const ParallelConfig &c : configs)
      group.push_back(int(std::lower_bound(keys.begin(), keys.end(),
                                           keyOf(c)) -
                          keys.begin()));
  }
}

std::string CostTables::edgeKey(int e) const {
  // t_x depends only on the producer's shape and configuration and on the
  // boxes the consumer's tasks read: edges that agree on those share a
  // table (Inception's parallel 1x1 convolutions of one input, every relu
  // or batch norm of one shape). A consumer that reads exactly its own tile
  // is keyed by shape alone; the others by a fingerprint of every box of
  // every candidate.
  const LayerEdge &edge = edges[e];
  std::string key = shapeKey(graph.layers[edge.producer].shape) + "|" +
                    candidatesKey(candidates[edge.producer]) + "|" +
                    candidatesKey(candidates[edge.consumer]) + "|";
  if (readsOwnTile(edge.consumer, edge.operand))
    return key + "own-tile";
  // Two independent 64-bit hashes, a word at a time.
  uint64_t h = 14695981039346656037ull, g = 1099511628211ull;
  auto rotate = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto mix = [&](int64_t v) {
    h = rotate(h ^ uint64_t(v), 23) * 0x9e3779b97f4a7c15ull;
    g = rotate(g + uint64_t(v), 31) * 0xc2b2ae3d27d4eb4full;
  };
  const Layer &consumer = graph.layers[edge.consumer];
  for (const ParallelConfig &c : candidates[edge.consumer]) {
    mix(-1);
    forEachTile(consumer.shape, c.degrees,
                [&](int64_t, const int64_t *, const TileBox &tile) {
                  TileBox box = consumer.inputBox(edge.operand, tile);
                  for (unsigned d = 0; d < box.rank(); ++d) {
                    mix(box[d].lo);
                    mix(box[d].hi);
                  }
                });
  }
  return key + std::to_string(h) + ":" + std::to_string(g);
}

/// Runs body(0..n-1) on every core.
static void parallelFor(size_t n, const std::function<void(size_t)> &body) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;)
      body(i);
  };
  unsigned threads =
      std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), n));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread &t : pool)
    t.join();
}

bool CostTables::readsOwnTile(int l, unsigned operand) const {
  const Layer &layer = graph.layers[l];
  if (layer.inputs[operand].shape != layer.shape)
    return false;
  // Probe, for each dim, the candidate that splits it most: a box function
  // that returns the tile itself for all of them is the identity.
  for (size_t d = 0; d < layer.shape.size(); ++d) {
    const ParallelConfig *probe = nullptr;
    for (const ParallelConfig &c : candidates[l])
      if (!probe || c.degrees[d] > probe->degrees[d])
        probe = &c;
    for (int64_t t = 0; t < probe->tasks(); ++t) {
      TileBox tile = tileOfTask(layer.shape, probe->degrees, t);
      if (layer.inputBox(operand, tile) != tile)
        return false;
    }
  }
  return true;
}

const std::vector<double> &CostTables::nodeTable(int l) {
  std::vector<double> &table = nodeCache[nodeKeys[l]];
  if (table.empty())
    for (const ParallelConfig &c : candidates[l]) {
      LayerCost cost = model.layerCost(graph.layers[l], c);
      table.push_back(cost.computeMs + syncWeight * cost.syncMs);
    }
  return table;
}

void CostTables::assignTables() {
  if (!tableOf.empty())
    return;
  parallelFor(edges.size(), [&](size_t e) {
    if (edgeKeys[e].empty())
      edgeKeys[e] = edgeKey(static_cast<int>(e));
  });
  std::map<std::string, int> ids;
  for (size_t e = 0; e < edges.size(); ++e) {
    auto [it, added] = ids.try_emplace(edgeKeys[e], int(tables.size()));
    if (added)
      tables.push_back(
          {int(e), candidates[edges[e].consumer].size(),
           std::vector<std::vector<double>>(candidates[edges[e].producer].size()),
           {},
           {}});
    tableOf.push_back(it->second);
  }
}

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
        grid = producerGrid(producer.shape,
                            candidates[edge.producer][rows[i]],
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

double CostTables::nodeCost(int l, int c) { return nodeTable(l)[c]; }

double CostTables::edgeCost(int e, int p, int c) {
  std::vector<double> *row =
      tableOf.empty() ? nullptr : &tables[tableOf[e]].rows[p];
  if (row && !row->empty() && !std::isnan((*row)[c]))
    return (*row)[c];
  // Not computed yet (a baseline, an imported strategy, a runner-up): one
  // entry is cheaper than a row.
  const LayerEdge &edge = edges[e];
  double ms = model
                  .transferCost(graph.layers[edge.producer],
                                candidates[edge.producer][p],
                                graph.layers[edge.consumer], edge.operand,
                                candidates[edge.consumer][c])
                  .ms;
  if (row) {
    if (row->empty())
      row->assign(tables[tableOf[e]].width, std::nan(""));
    (*row)[c] = ms;
  }
  return ms;
}

double CostTables::evaluate(const std::vector<int> &choice) {
  double total = 0;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    total += nodeCost(int(l), choice[l]);
  for (size_t e = 0; e < edges.size(); ++e)
    total += edgeCost(int(e), choice[edges[e].producer],
                      choice[edges[e].consumer]);
  return total;
}

SearchGraph CostTables::buildSearchGraph() {
  // Every edge's whole table, filled as the grouped search fills blocks.
  std::vector<EdgeBlock> blocks(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) {
    EdgeBlock &b = blocks[e];
    b.edge = int(e);
    b.rows.resize(candidates[edges[e].producer].size());
    b.cols.resize(candidates[edges[e].consumer].size());
    std::iota(b.rows.begin(), b.rows.end(), 0);
    std::iota(b.cols.begin(), b.cols.end(), 0);
  }
  fill(blocks);
  SearchGraph g;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    g.addNode(nodeTable(l));
  for (size_t e = 0; e < edges.size(); ++e)
    g.addEdge(edges[e].producer, edges[e].consumer, std::move(blocks[e].costs));
  return g;
}

/// Sorted disjoint ranges: those of `a` within some range of `b`.
static std::vector<Range> intersectRanges(const std::vector<Range> &a,
                                          const std::vector<Range> &b) {
  std::vector<Range> out;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    Range r = intersect(a[i], b[j]);
    if (!r.empty())
      out.push_back(r);
    (a[i].hi < b[j].hi ? i : j)++;
  }
  return out;
}

/// Per operand dim of `shape`, how many elements up to each index every
/// one of `members` reads (empty: unknown). With separable boxes a
/// consumer's tasks together read the product of each dim's union of
/// ranges, so the product of these intersections is read by any member.
static std::vector<std::vector<int64_t>>
readPrefix(const std::vector<int64_t> &shape,
           const std::vector<const ConsumerTiles *> &members) {
  std::vector<std::vector<Range>> common;
  for (int64_t size : shape)
    common.push_back({Range{0, size}});
  for (const ConsumerTiles *tiles : members) {
    if (!tiles->separable)
      return {}; // no bound
    for (size_t d = 0; d < shape.size(); ++d) {
      std::vector<Range> mine;
      for (const Range &r : tiles->ranges[d])
        if (!r.empty())
          mine.push_back(r);
      std::sort(mine.begin(), mine.end(), [](const Range &x, const Range &y) {
        return x.lo < y.lo;
      });
      std::vector<Range> merged;
      for (const Range &r : mine)
        if (!merged.empty() && r.lo <= merged.back().hi)
          merged.back().hi = std::max(merged.back().hi, r.hi);
        else
          merged.push_back(r);
      common[d] = intersectRanges(common[d], merged);
    }
  }
  std::vector<std::vector<int64_t>> prefixes;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<int64_t> &prefix = prefixes.emplace_back(shape[d] + 1, 0);
    for (const Range &r : common[d])
      for (int64_t i = r.lo; i < r.hi; ++i)
        prefix[i + 1] = 1;
    for (int64_t i = 0; i < shape[d]; ++i)
      prefix[i + 1] += prefix[i];
  }
  return prefixes;
}

void CostTables::prepareBounds(Table &t) {
  if (!t.boundsReady)
    prepareBounds(t, allColumns(t));
}

void CostTables::prepareBounds(Table &t,
                               const std::vector<ConsumerTiles> &colTiles) {
  const LayerEdge &edge = edges[t.edge];
  const Layer &producer = graph.layers[edge.producer];
  const std::vector<ParallelConfig> &rows = candidates[edge.producer];
  const std::vector<ParallelConfig> &cols = candidates[edge.consumer];
  const std::vector<int> &rowGroup = groupOf[edge.producer];
  const std::vector<int> &colGroup = groupOf[edge.consumer];
  const std::vector<int64_t> &rowTasks = groupTasks[edge.producer];
  const std::vector<int64_t> &colTasks = groupTasks[edge.consumer];
  constexpr double kInf = std::numeric_limits<double>::infinity();
  int64_t perNode = model.getMachine().devicesPerNode;

  // What the position-free bound needs of every consumer configuration,
  // and per consumer group what every member reads and the least of its
  // members' largest boxes.
  std::vector<ConsumerExtents> colExtents(cols.size());
  std::vector<std::vector<double>> colVolumes(cols.size());
  parallelFor(cols.size(), [&](size_t c) {
    for (const TileBox &box : colTiles[c].boxes)
      colVolumes[c].push_back(kBytesPerElement * double(box.volume()));
    colExtents[c] = consumerExtents(colTiles[c].boxes);
  });
  std::vector<std::vector<std::vector<int64_t>>> prefixes(colTasks.size());
  std::vector<int64_t> leastLargest(colTasks.size(), INT64_MAX);
  parallelFor(colTasks.size(), [&](size_t g) {
    std::vector<const ConsumerTiles *> members;
    for (size_t c = 0; c < cols.size(); ++c)
      if (colGroup[c] == int(g)) {
        members.push_back(&colTiles[c]);
        leastLargest[g] = std::min(leastLargest[g], colTiles[c].largestBox);
      }
    prefixes[g] = readPrefix(producer.shape, members);
  });

  // Per producer configuration, its extents and, against every consumer
  // group, the idle-device bound: producer tasks on devices the group
  // leaves idle send every element all its members read.
  std::vector<ProducerExtents> rowExtents(rows.size());
  t.vsRow.assign(rows.size(), std::vector<double>(colTasks.size(), 0.0));
  parallelFor(rows.size(), [&](size_t p) {
    ProducerGrid grid = producerGrid(producer.shape, rows[p]);
    rowExtents[p] = producerExtents(grid, perNode);
    size_t rank = grid.shape.size();
    int64_t tasks = grid.config.tasks();
    std::vector<double> bytes, partReads(grid.parts.size());
    for (size_t g = 0; g < colTasks.size(); ++g) {
      if (prefixes[g].empty())
        continue;
      // What the group reads of each part, then per task the product over
      // its parts: one lookup a dim.
      for (size_t d = 0; d < rank; ++d)
        for (int64_t i = grid.partOffset[d]; i < grid.partOffset[d + 1]; ++i)
          partReads[i] = double(prefixes[g][d][grid.parts[i].hi] -
                                prefixes[g][d][grid.parts[i].lo]);
      bytes.assign(tasks, 0);
      for (int64_t task = colTasks[g]; task < tasks; ++task)
        bytes[task] = kBytesPerElement;
      for (size_t d = 0; d < rank; ++d) {
        const double *reads = &partReads[grid.partOffset[d]];
        const int64_t *coord = &grid.coords[d * tasks];
        for (int64_t task = colTasks[g]; task < tasks; ++task)
          bytes[task] *= reads[coord[task]];
      }
      t.vsRow[p][g] =
          model.transferLowerBoundMs(bytes, colTasks[g], leastLargest[g]);
    }
  });
  // The position-free bound of every pair, once; each side's bound against
  // a group of the other is the larger of the least over the group's
  // members and the idle-device bound.
  std::vector<double> misaligned(rows.size() * cols.size());
  parallelFor(rows.size(), [&](size_t p) {
    std::vector<double> least(colTasks.size(), kInf);
    for (size_t c = 0; c < cols.size(); ++c) {
      double &m = misaligned[p * cols.size() + c];
      m = model.misalignmentBoundMs(rowExtents[p], colExtents[c]);
      least[colGroup[c]] = std::min(least[colGroup[c]], m);
    }
    for (size_t g = 0; g < colTasks.size(); ++g)
      t.vsRow[p][g] = std::max(t.vsRow[p][g], least[g]);
  });
  // Consumer tasks on devices a producer group leaves idle receive their
  // whole box.
  t.vsCol.assign(cols.size(), std::vector<double>(rowTasks.size(), kInf));
  parallelFor(cols.size(), [&](size_t c) {
    std::vector<double> &bounds = t.vsCol[c];
    for (size_t p = 0; p < rows.size(); ++p)
      bounds[rowGroup[p]] =
          std::min(bounds[rowGroup[p]], misaligned[p * cols.size() + c]);
    for (size_t g = 0; g < rowTasks.size(); ++g)
      bounds[g] = std::max(bounds[g], model.transferLowerBoundMs(
                                          colVolumes[c], rowTasks[g],
                                          colTiles[c].largestBox));
  });
  // A group against a group of the other side: the least of the first's
  // bound over the second's members, each way. A configuration against a
  // group is also bounded by its own group against that group, taken
  // from the other side (groupBound); without that, a group's members
  // could fall below the stand-in they replace when it joins the exact
  // part.
  t.fromProducer.assign(rowTasks.size(),
                        std::vector<double>(colTasks.size(), kInf));
  t.fromConsumer = t.fromProducer;
  for (size_t p = 0; p < rows.size(); ++p)
    for (size_t g = 0; g < colTasks.size(); ++g) {
      double &s = t.fromProducer[rowGroup[p]][g];
      s = std::min(s, t.vsRow[p][g]);
    }
  for (size_t c = 0; c < cols.size(); ++c)
    for (size_t g = 0; g < rowTasks.size(); ++g) {
      double &s = t.fromConsumer[g][colGroup[c]];
      s = std::min(s, t.vsCol[c][g]);
    }
  t.boundsReady = true;
}

double CostTables::groupBound(int e, bool groupAtFrom, int group,
                              int config) {
  assignTables();
  Table &t = tables[tableOf[e]];
  prepareBounds(t);
  const LayerEdge &edge = edges[e];
  if (groupAtFrom)
    return std::max(t.vsCol[config][group],
                    t.fromProducer[group][groupOf[edge.consumer][config]]);
  return std::max(t.vsRow[config][group],
                  t.fromConsumer[groupOf[edge.producer][config]][group]);
}

double CostTables::standInsBound(int e, int fromGroup, int toGroup) {
  assignTables();
  Table &t = tables[tableOf[e]];
  prepareBounds(t);
  return std::max(t.fromProducer[fromGroup][toGroup],
                  t.fromConsumer[fromGroup][toGroup]);
}

bool CostTables::startsExact(int l, int group) {
  // A layer whose groups have two members or fewer on average (a
  // fully-connected layer's n x c splits: one per task count and channel
  // degree) gains nothing from stand-ins: it is exact whole, rather than
  // opening one group a round at the end of the search.
  if (candidates[l].size() <= 2 * groupTasks[l].size())
    return true;
  // On a few devices a round costs more than the tables of the groups on
  // the most devices, and the fastest plans use them: they start exact
  // (Inception-v3 on 16 devices: one round and 170 ms against 6 rounds
  // and 245 ms; on 32, 315 against 343 ms). On more, their tables get
  // filled against every group that joins later, and every group starts
  // as a stand-in (Inception-v3 on 64 devices: 0.7 against 0.9 s; on
  // 1024, 328 configurations exact in the first round against 51,528, and
  // 23 against 52 s).
  constexpr int64_t kMostTasksExactUpTo = 32;
  return groupTasks[l][group] == groupTasks[l][0] &&
         groupTasks[l][0] <= kMostTasksExactUpTo;
}

std::vector<std::vector<std::vector<int>>> CostTables::seeds() {
  // One family per task count: every layer on that many tasks, split
  // along samples and channels only. Such layers align their tiles, and
  // each has a handful of these configurations. The optimum on a cluster
  // often keeps one task count throughout: Inception-v3 on 1024 H200s
  // runs every layer on 128.
  std::set<int64_t> taskCounts;
  for (const std::vector<ParallelConfig> &configs : candidates)
    for (const ParallelConfig &c : configs)
      taskCounts.insert(c.tasks());
  auto samplesAndChannels = [](const ParallelConfig &c) {
    return std::all_of(c.degrees.begin() +
                           std::min<size_t>(2, c.degrees.size()),
                       c.degrees.end(), [](int64_t d) { return d == 1; });
  };
  std::vector<std::vector<std::vector<int>>> families;
  for (int64_t tasks : taskCounts) {
    std::vector<std::vector<int>> family;
    for (const std::vector<ParallelConfig> &configs : candidates) {
      std::vector<int> &subset = family.emplace_back();
      for (int c = 0; c < int(configs.size()); ++c)
        if (configs[c].tasks() == tasks && samplesAndChannels(configs[c]))
          subset.push_back(c);
      if (subset.empty())
        break; // a layer that cannot run on that many tasks this way
    }
    if (family.size() == candidates.size() && !family.back().empty())
      families.push_back(std::move(family));
  }
  return families;
}

double CostTables::nodeMemory(int l, int c) const {
  return double(model.layerMemoryBytes(graph.layers[l], candidates[l][c]));
}

double CostTables::edgeMemory(int e, const ProducerGrid &producer,
                              const ConsumerTiles &tiles) const {
  return double(CostModel::inputCopyBytes(producer, tiles,
                                          readers[edges[e].producer] == 1));
}

SearchGraph CostTables::buildMemoryGraph() {
  // As the time tables: each distinct table once, on every core. An
  // edge's bytes also depend on whether its producer has other readers.
  assignTables();
  auto memoryKey = [&](size_t e) {
    return edgeKeys[e] + (readers[edges[e].producer] == 1 ? "|only" : "|");
  };
  std::vector<int> nodes, todo;
  std::set<std::string> seen;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    if (nodeMemoryCache[nodeKeys[l]].empty() && seen.insert(nodeKeys[l]).second)
      nodes.push_back(static_cast<int>(l));
  for (size_t e = 0; e < edges.size(); ++e)
    if (edgeMemoryCache[memoryKey(e)].empty() &&
        seen.insert(memoryKey(e)).second)
      todo.push_back(static_cast<int>(e));
  std::vector<std::vector<double>> nodeTables(nodes.size()),
      edgeTables(todo.size());
  parallelFor(nodes.size() + todo.size(), [&](size_t i) {
    if (i < nodes.size()) {
      int l = nodes[i];
      for (size_t c = 0; c < candidates[l].size(); ++c)
        nodeTables[i].push_back(nodeMemory(l, c));
      return;
    }
    int e = todo[i - nodes.size()];
    const LayerEdge &edge = edges[e];
    const auto &pcs = candidates[edge.producer];
    std::vector<ConsumerTiles> columns;
    for (const ParallelConfig &c : candidates[edge.consumer])
      columns.push_back(
          consumerTiles(graph.layers[edge.consumer], edge.operand, c));
    std::vector<double> &table = edgeTables[i - nodes.size()];
    for (const ParallelConfig &p : pcs) {
      ProducerGrid row = producerGrid(graph.layers[edge.producer].shape, p);
      for (const ConsumerTiles &column : columns)
        table.push_back(edgeMemory(e, row, column));
    }
  });
  for (size_t i = 0; i < nodes.size(); ++i)
    nodeMemoryCache[nodeKeys[nodes[i]]] = std::move(nodeTables[i]);
  for (size_t i = 0; i < todo.size(); ++i)
    edgeMemoryCache[memoryKey(todo[i])] = std::move(edgeTables[i]);

  SearchGraph g;
  for (size_t l = 0; l < graph.layers.size(); ++l)
    g.addNode(nodeMemoryCache[nodeKeys[l]]);
  for (size_t e = 0; e < edges.size(); ++e)
    g.addEdge(edges[e].producer, edges[e].consumer,
              edgeMemoryCache[memoryKey(e)]);
  return g;
}

std::vector<double>
CostTables::layerMemory(const std::vector<int> &choice) const {
  std::vector<double> bytes(graph.layers.size());
  for (size_t l = 0; l < graph.layers.size(); ++l)
    bytes[l] = nodeMemory(l, choice[l]);
  for (size_t e = 0; e < edges.size(); ++e) {
    const LayerEdge &edge = edges[e];
    bytes[edge.consumer] += edgeMemory(
        e,
        producerGrid(graph.layers[edge.producer].shape,
                     candidates[edge.producer][choice[edge.producer]]),
        consumerTiles(graph.layers[edge.consumer], edge.operand,
                      candidates[edge.consumer][choice[edge.consumer]]));
  }
  return bytes;
}

std::vector<std::pair<int, double>>
CostTables::runnersUp(const std::vector<int> &choice) {
  std::vector<std::pair<int, double>> out;
  for (size_t l = 0; l < graph.layers.size(); ++l) {
    // The layer's share of the iteration time in candidate c, with its
    // neighbours fixed.
    auto share = [&](int c) {
      double v = nodeCost(l, c);
      for (int e : edgesOf[l]) {
        const LayerEdge &edge = edges[e];
        v += edge.producer == static_cast<int>(l)
                 ? edgeCost(e, c, choice[edge.consumer])
                 : edgeCost(e, choice[edge.producer], c);
      }
      return v;
    };
    // A lower bound on each candidate's share, so that those whose group
    // the search never filled are mostly ruled out without their tables.
    auto atLeast = [&](int c) {
      double v = nodeCost(l, c);
      for (int e : edgesOf[l]) {
        const LayerEdge &edge = edges[e];
        bool producer = edge.producer == static_cast<int>(l);
        v += groupBound(e, producer, groupOf[l][c],
                        producer ? choice[edge.consumer]
                                 : choice[edge.producer]);
      }
      return v;
    };
    std::vector<std::pair<double, int>> order;
    for (int c = 0; c < static_cast<int>(candidates[l].size()); ++c)
      if (c != choice[l])
        order.push_back({atLeast(c), c});
    std::sort(order.begin(), order.end());
    double current = share(choice[l]);
    int best = -1;
    double bestCost = std::numeric_limits<double>::infinity();
    for (auto [bound, c] : order) {
      if (bound > bestCost)
        break;
      double v = share(c);
      // Ties go to the first candidate, as a scan in order would.
      if (v < bestCost || (v == bestCost && c < best)) {
        bestCost = v;
        best = c;
      }
    }
    out.push_back({best, best < 0 ? 0.0 : bestCost - current});
  }
  return out;
}

} // namespace hd
