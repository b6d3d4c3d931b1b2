//===- GroupBounds.cpp - lower bounds of a table against whole groups -----===//
//
// The grouped search (GroupedSearch.h) stands a group of configurations in
// for its members until it must open the group, and needs bounds on the
// transfers of members whose entries it never computed: from the devices a
// group leaves idle, and from the position-free bound of every pair
// (CostModel::misalignmentBoundMs). A table's bounds are computed together,
// on every core, when the first is asked for.
//
//===----------------------------------------------------------------------===//

#include "hd/Strategy/CostTables.h"

#include "ParallelFor.h"

#include <algorithm>
#include <limits>

namespace hd {

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
      std::sort(mine.begin(), mine.end(),
                [](const Range &x, const Range &y) { return x.lo < y.lo; });
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
  double elementBytes = bytesOf(producer.numerics.output);

  // What the position-free bound needs of every consumer configuration,
  // and per consumer group what every member reads and the least of its
  // members' largest boxes.
  std::vector<ConsumerExtents> colExtents(cols.size());
  std::vector<std::vector<double>> colVolumes(cols.size());
  parallelFor(cols.size(), [&](size_t c) {
    for (const TileBox &box : colTiles[c].boxes)
      colVolumes[c].push_back(elementBytes * double(box.volume()));
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
    ProducerGrid grid = producerGrid(producer, rows[p]);
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
        bytes[task] = elementBytes;
      for (size_t d = 0; d < rank; ++d) {
        const double *reads = &partReads[grid.partOffset[d]];
        const int64_t *coord = &grid.coords[d * tasks];
        for (int64_t task = colTasks[g]; task < tasks; ++task)
          bytes[task] *= reads[coord[task]];
      }
      t.vsRow[p][g] = model.transferLowerBoundMs(bytes, colTasks[g],
                                                 leastLargest[g], elementBytes);
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
      bounds[g] = std::max(
          bounds[g],
          model.transferLowerBoundMs(colVolumes[c], rowTasks[g],
                                     colTiles[c].largestBox, elementBytes));
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

double CostTables::groupBound(int e, bool groupAtFrom, int group, int config) {
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

} // namespace hd
