//===- ConsumerLayers.h - consumers with hd's box functions -----*- C++ -*-===//
//
// Layers built by hand with the input-box functions of hd's layer kinds
// (convolution with halos and groups, elementwise, a concat's second input,
// rows read in reverse, flatten, linear), reading one NCHW producer: the
// shapes of reads that the transfer plan, the cost model's loads and their
// bounds must all handle.
//
//===----------------------------------------------------------------------===//

#ifndef HD_UNITTESTS_COMMON_CONSUMERLAYERS_H
#define HD_UNITTESTS_COMMON_CONSUMERLAYERS_H

#include "hd/CostModel/LayerGraph.h"
#include "hd/Tiling/Window.h"

#include <random>
#include <vector>

namespace hd::test {

/// Consumers with the box functions of hd's layers, on NCHW tensors.
inline Layer convLike(std::vector<int64_t> in, int64_t outChannels, Window w,
                      int64_t groups) {
  Layer l;
  l.kind = CostKind::Conv;
  l.shape = {in[0], outChannels, w.outputSize(in[2]), w.outputSize(in[3])};
  l.inputs = {{0, in}};
  l.inputBox = [=](unsigned, const TileBox &t) {
    int64_t outPer = outChannels / groups, inPer = in[1] / groups;
    Range ch{0, in[1]};
    if (groups > 1)
      ch = {t[1].lo / outPer * inPer, ((t[1].hi - 1) / outPer + 1) * inPer};
    return TileBox(
        {t[0], ch, w.inputRange(t[2], in[2]), w.inputRange(t[3], in[3])});
  };
  return l;
}

inline Layer elementwise(std::vector<int64_t> shape) {
  Layer l;
  l.shape = shape;
  l.inputs = {{0, shape}};
  l.inputBox = [](unsigned, const TileBox &t) { return t; };
  return l;
}

/// The second input of a channel concat: channels [offset, offset + c).
inline Layer concatSecond(std::vector<int64_t> in, int64_t offset,
                          int64_t total) {
  Layer l;
  l.shape = {in[0], total, in[2], in[3]};
  l.inputs = {{0, in}, {0, in}};
  l.inputBox = [=](unsigned, const TileBox &t) {
    TileBox b = t;
    Range mine = intersect(t[1], {offset, offset + in[1]});
    b[1] = {mine.lo - offset, mine.hi - offset};
    return b;
  };
  return l;
}

/// Reads its rows in reverse order: ranges that fall as the coordinate
/// rises.
inline Layer reversedRows(std::vector<int64_t> shape) {
  Layer l;
  l.shape = shape;
  l.inputs = {{0, shape}};
  l.inputBox = [=](unsigned, const TileBox &t) {
    TileBox b = t;
    b[2] = {shape[2] - t[2].hi, shape[2] - t[2].lo};
    return b;
  };
  return l;
}

inline Layer flatten(std::vector<int64_t> in) {
  Layer l;
  l.shape = {in[0], in[1] * in[2] * in[3]};
  l.inputs = {{0, in}};
  l.inputBox = [=](unsigned, const TileBox &t) {
    int64_t plane = in[2] * in[3];
    return TileBox({t[0],
                    {t[1].lo / plane, (t[1].hi + plane - 1) / plane},
                    {0, in[2]},
                    {0, in[3]}});
  };
  return l;
}

inline Layer linear(std::vector<int64_t> in, int64_t out) {
  Layer l;
  l.shape = {in[0], out};
  l.inputs = {{0, in}};
  l.inputBox = [=](unsigned, const TileBox &t) {
    return TileBox({t[0], {0, in[1]}});
  };
  return l;
}

/// A producer of random NCHW shape (`producerShape`) and one consumer of
/// it of each kind.
inline std::vector<Layer> consumers(std::vector<int64_t> &producerShape,
                                    std::mt19937 &rng) {
  std::uniform_int_distribution<int64_t> sz(3, 9);
  int64_t n = sz(rng), c = 2 * sz(rng), h = sz(rng) + 2, w = sz(rng);
  producerShape = {n, c, h, w};
  return {
      convLike(producerShape, 6, Window{3, 1, 1, 1, 1, false}, 1),
      convLike(producerShape, c, Window{3, 2, 1, 0, 1, false}, 2),
      convLike(producerShape, 4, Window{1, 1, 0, 0, 1, false}, 1),
      convLike(producerShape, 8, Window{3, 1, 2, 2, 2, false}, 1),
      elementwise(producerShape),
      concatSecond(producerShape, 5, c + 5),
      reversedRows(producerShape),
      flatten(producerShape),
  };
}

} // namespace hd::test

#endif // HD_UNITTESTS_COMMON_CONSUMERLAYERS_H
