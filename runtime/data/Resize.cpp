//===- Resize.cpp - resize and center-crop an image to the model ----------===//
//
// An ImageFolder's images come in every size; the model takes one. As
// torchvision's Resize then CenterCrop do, the image is scaled (aspect kept)
// until it covers the model's H x W, then the middle is cut out. Bilinear
// interpolation with half-pixel centers, without antialiasing (torchvision's
// antialias=False, PyTorch's interpolate with align_corners=False), so that
// each output value depends on at most four pixels and a tile of the output
// is computed without resizing the whole image.
//
//===----------------------------------------------------------------------===//

#include "Image.h"

#include <algorithm>
#include <cmath>

namespace hdrt::data {

namespace {

/// The two source pixels an output coordinate reads along one axis, and
/// the weight of the second.
struct Taps {
  int64_t i0, i1;
  double t;
};

/// Output coordinate `dst` of `in` source pixels resized to `out`.
Taps bilinearTaps(int64_t dst, int64_t in, int64_t out) {
  double src = (dst + 0.5) * (double(in) / double(out)) - 0.5;
  if (src < 0)
    src = 0;
  int64_t i0 = std::min<int64_t>(int64_t(std::floor(src)), in - 1);
  int64_t i1 = std::min<int64_t>(i0 + 1, in - 1);
  return {i0, i1, src - double(i0)};
}

/// Channel `c` of the model's `modelC` from one pixel of `channels`.
double channelValue(const uint8_t *px, int channels, int64_t modelC,
                    int64_t c) {
  if (channels < 3) // gray, or gray and alpha
    return px[0];
  if (modelC == 3)
    return px[c];
  return 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
}

} // namespace

CoverCrop coverCrop(int64_t h, int64_t w, int64_t modelH, int64_t modelW) {
  CoverCrop r;
  // The axis with the larger scale (modelH / h against modelW / w) is
  // resized to the model's exactly; the other rounds down, which still
  // covers the model's since the exact value does.
  using Wide = __int128;
  if (Wide(modelH) * w >= Wide(modelW) * h) {
    r.rh = modelH;
    r.rw = int64_t(Wide(w) * modelH / h);
  } else {
    r.rw = modelW;
    r.rh = int64_t(Wide(h) * modelW / w);
  }
  r.top = (r.rh - modelH) / 2;
  r.left = (r.rw - modelW) / 2;
  return r;
}

void resizeCropRegion(const Pixels &pixels, const ImageShape &shape,
                      const Region &region, float *out) {
  CoverCrop cc = coverCrop(pixels.height, pixels.width, shape.h, shape.w);
  std::vector<Taps> rows, cols;
  for (int64_t y = region.y0; y < region.y1; ++y)
    rows.push_back(bilinearTaps(y + cc.top, pixels.height, cc.rh));
  for (int64_t x = region.x0; x < region.x1; ++x)
    cols.push_back(bilinearTaps(x + cc.left, pixels.width, cc.rw));

  const int ch = pixels.channels;
  auto at = [&](int64_t y, int64_t x) {
    return pixels.data.data() + (y * pixels.width + x) * ch;
  };
  for (int64_t c = region.c0; c < region.c1; ++c)
    for (const Taps &ty : rows)
      for (const Taps &tx : cols) {
        double top =
            (1 - tx.t) * channelValue(at(ty.i0, tx.i0), ch, shape.c, c) +
            tx.t * channelValue(at(ty.i0, tx.i1), ch, shape.c, c);
        double bottom =
            (1 - tx.t) * channelValue(at(ty.i1, tx.i0), ch, shape.c, c) +
            tx.t * channelValue(at(ty.i1, tx.i1), ch, shape.c, c);
        // Exact pixel values stay exact, and scale as the other formats'.
        *out++ = float((1 - ty.t) * top + ty.t * bottom) / 255.0f;
      }
}

} // namespace hdrt::data
