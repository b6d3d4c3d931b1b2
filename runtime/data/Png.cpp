//===- Png.cpp - PNG headers and pixels through libpng --------------------===//
//
// libpng's low-level interface rather than its simplified one: the
// simplified one converts to sRGB with the file's gamma, while PIL (what
// torchvision's ImageFolder loads with) gives the stored values. Palettes,
// low bit depths and transparency expand to 8-bit gray, gray-alpha, RGB or
// RGBA; 16-bit samples keep their high byte, as PIL's do.
//
// libpng reports errors by longjmp. The function that calls it holds no
// objects with destructors (what it fills is owned by its caller), so the
// jump skips nothing C++ must run, and the error becomes a message once
// libpng's structures are freed (ImageFolder.cpp throws it, with the path).
//
//===----------------------------------------------------------------------===//

#include "Image.h"

#include <png.h>

#include <csetjmp>
#include <cstdio>

namespace hdrt::data {

namespace {

/// What one libpng session fills in; owned outside the setjmp scope.
struct PngSession : DecodeState {
  std::vector<png_bytep> rows;
};

void onError(png_structp png, png_const_charp message) {
  auto *s = static_cast<PngSession *>(png_get_error_ptr(png));
  std::snprintf(s->message, sizeof s->message, "%s", message);
  png_longjmp(png, 1);
}

void onWarning(png_structp, png_const_charp) {}

/// The reason libpng's expanded layout cannot be taken, or null.
const char *checkLayout(const PngSession &s, size_t rowBytes) {
  if (s.channels < 1 || s.channels > 4 ||
      rowBytes != size_t(s.width) * s.channels)
    return "a layout libpng did not expand to 8-bit pixels";
  if (int64_t(s.width) * s.height * 4 > kMaxImageBytes)
    return "too many pixels to decode";
  return nullptr;
}

bool runSession(FILE *file, PngSession &s) {
  png_structp png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, onError, onWarning);
  if (!png) {
    std::snprintf(s.message, sizeof s.message, "libpng: out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    if (!info)
      std::snprintf(s.message, sizeof s.message, "libpng: out of memory");
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    return false;
  }
  png_init_io(png, file);
  png_read_info(png, info);
  png_set_expand(png);
  png_set_strip_16(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  s.width = png_get_image_width(png, info);
  s.height = png_get_image_height(png, info);
  s.channels = png_get_channels(png, info);
  const char *bad = checkLayout(s, png_get_rowbytes(png, info));
  if (!bad && s.pixels) {
    try {
      s.pixels->data.resize(size_t(s.width) * s.height * s.channels);
      s.rows.resize(s.height);
    } catch (const std::bad_alloc &) {
      bad = "out of memory for its pixels";
    }
  }
  if (bad) {
    std::snprintf(s.message, sizeof s.message, "%s", bad);
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  if (s.pixels) {
    for (int64_t y = 0; y < s.height; ++y)
      s.rows[y] = s.pixels->data.data() + size_t(y) * s.width * s.channels;
    png_read_image(png, s.rows.data());
  }
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

} // namespace

bool runLibpng(FILE *file, DecodeState &state) {
  PngSession s;
  static_cast<DecodeState &>(s) = state;
  bool ok = runSession(file, s);
  state = s;
  return ok;
}

} // namespace hdrt::data
