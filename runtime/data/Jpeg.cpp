//===- Jpeg.cpp - JPEG headers and pixels through libjpeg -----------------===//
//
// libjpeg(-turbo) with its defaults (islow DCT, fancy upsampling), which is
// how PIL decodes too: gray files stay one channel, color files come out
// RGB. CMYK files (PIL inverts Adobe's) are refused at open rather than
// decoded wrong. libjpeg turns a file that ends early into a warning and
// gray pixels; here it is an error, so that a truncated download does not
// train as a half-gray image. Its other warnings (extraneous bytes before a
// marker, common in real data sets) are not.
//
// libjpeg reports errors through a callback that must not return; it
// longjmps back to the function that called libjpeg, which holds no objects
// with destructors, and the error becomes a message from there
// (ImageFolder.cpp throws it, with the path).
//
//===----------------------------------------------------------------------===//

#include "Image.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jerror.h>
#include <jpeglib.h>

namespace hdrt::data {

namespace {

/// One libjpeg session's error manager and results; owned outside the
/// setjmp scope. Callbacks find it through cinfo->client_data.
struct JpegSession : DecodeState {
  jpeg_error_mgr err;
  jmp_buf jump;
};
static_assert(sizeof(DecodeState::message) >= JMSG_LENGTH_MAX,
              "libjpeg formats its messages into a JMSG_LENGTH_MAX buffer");

[[noreturn]] void onError(j_common_ptr cinfo) {
  auto *s = static_cast<JpegSession *>(cinfo->client_data);
  (*cinfo->err->format_message)(cinfo, s->message);
  std::longjmp(s->jump, 1);
}

/// Warnings are level -1; only "premature end of file" stops the decode.
void onMessage(j_common_ptr cinfo, int level) {
  if (level == -1 && cinfo->err->msg_code == JWRN_JPEG_EOF)
    onError(cinfo);
}

bool runSession(FILE *file, JpegSession &s) {
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = jpeg_std_error(&s.err);
  cinfo.client_data = &s;
  s.err.error_exit = onError;
  s.err.emit_message = onMessage;
  if (setjmp(s.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file);
  jpeg_read_header(&cinfo, TRUE);
  s.width = cinfo.image_width;
  s.height = cinfo.image_height;
  const char *bad = nullptr;
  J_COLOR_SPACE space = cinfo.jpeg_color_space;
  if (space == JCS_CMYK || space == JCS_YCCK)
    bad = "CMYK JPEG images are not supported";
  else if (space != JCS_GRAYSCALE && space != JCS_RGB && space != JCS_YCbCr)
    bad = "its color space is neither gray, RGB nor YCbCr";
  else if (s.width * s.height * 4 > kMaxImageBytes)
    bad = "too many pixels to decode";
  bool gray = space == JCS_GRAYSCALE;
  cinfo.out_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
  s.channels = gray ? 1 : 3;
  if (!bad && s.pixels) {
    try {
      s.pixels->data.resize(s.width * s.height * s.channels);
    } catch (const std::bad_alloc &) {
      bad = "out of memory for its pixels";
    }
  }
  if (!bad && s.pixels) {
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != s.width || cinfo.output_height != s.height ||
        cinfo.output_components != s.channels)
      bad = "libjpeg decodes it to another size than its header's";
    while (!bad && cinfo.output_scanline < cinfo.output_height) {
      JSAMPROW row = s.pixels->data.data() +
                     int64_t(cinfo.output_scanline) * s.width * s.channels;
      jpeg_read_scanlines(&cinfo, &row, 1);
    }
    if (!bad)
      jpeg_finish_decompress(&cinfo);
  }
  if (bad)
    std::snprintf(s.message, sizeof s.message, "%s", bad);
  jpeg_destroy_decompress(&cinfo);
  return !bad;
}

} // namespace

bool runLibjpeg(FILE *file, DecodeState &state) {
  JpegSession s;
  static_cast<DecodeState &>(s) = state;
  bool ok = runSession(file, s);
  state = s;
  return ok;
}

} // namespace hdrt::data
