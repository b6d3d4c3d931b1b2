//===- ImageFolder.cpp - torchvision's root/<class>/<image> layout --------===//
//
// The layout most image data sets are unpacked to: one directory per class,
// classes numbered in sorted name order, PNG and JPEG files within them
// sorted by name. Open lists everything and reads every image's header, so
// that a file that is not an image (or a class with no images) stops the
// job before training rather than at some step hours in; read() decodes the
// whole image and resizes it to the model (Resize.cpp), and keeps nothing,
// so that threads share no state.
//
//===----------------------------------------------------------------------===//

#include "Image.h"

#include "Formats.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace hdrt::data {

namespace fs = std::filesystem;

namespace {

struct ImageFile {
  std::string path;
  int32_t label;
  ImageInfo info;
};

bool hasImageExtension(const fs::path &file) {
  std::string ext = file.extension().string();
  for (char &c : ext)
    c = std::tolower((unsigned char)c);
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

/// The sorted names of `dir`'s entries that `keep` accepts.
template <typename Keep>
std::vector<std::string> sortedEntries(const fs::path &dir, Keep keep) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code typeEc;
    if (keep(*it, typeEc))
      names.push_back(it->path().filename().string());
  }
  if (ec)
    fail(dir.string(), "cannot list it: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

/// The images of a class directory and of every directory below it (links
/// followed), in torchvision's order: directories sorted by path, each
/// one's files by name.
std::vector<std::string> classImages(const fs::path &dir) {
  std::vector<std::pair<std::string, std::string>> found; // (directory, name)
  std::error_code ec;
  fs::recursive_directory_iterator it(
      dir, fs::directory_options::follow_directory_symlink, ec),
      end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code typeEc;
    if (hasImageExtension(it->path()) && it->is_regular_file(typeEc))
      found.emplace_back(it->path().parent_path().string(),
                         it->path().filename().string());
  }
  if (ec)
    fail(dir.string(), "cannot list it: " + ec.message());
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (const auto &[parent, name] : found)
    paths.push_back((fs::path(parent) / name).string());
  return paths;
}

class ImageFolder : public Dataset {
public:
  ImageFolder(std::string root, ImageShape shape, std::vector<ImageFile> files,
              int64_t classes)
      : Dataset(files.size(), shape), root(std::move(root)),
        files(std::move(files)), classes(classes) {}

  std::string describe() const override {
    int64_t png = 0;
    for (const ImageFile &f : files)
      png += f.info.kind == ImageInfo::Kind::Png;
    return "ImageFolder '" + root + "': " + std::to_string(size()) +
           " images (" + std::to_string(png) + " PNG, " +
           std::to_string(size() - png) + " JPEG) in " +
           std::to_string(classes) + " classes, resized and cropped to " +
           toString(shape()) + " (uint8)";
  }
  int32_t label(int64_t index) const override {
    checkIndex(index);
    return files[index].label;
  }
  void read(int64_t index, const Region &region, float *out) const override {
    checkIndex(index);
    checkRegion(region);
    const ImageFile &f = files[index];
    Pixels pixels = decodeImage(f.path, f.info);
    resizeCropRegion(pixels, shape(), region, out);
  }

private:
  std::string root;
  std::vector<ImageFile> files;
  int64_t classes;
};

} // namespace

namespace {

using File = std::unique_ptr<FILE, int (*)(FILE *)>;

File openImage(const std::string &path) {
  File file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file)
    fail(path, std::string("cannot open it: ") + std::strerror(errno));
  return file;
}

/// Runs the decoder of `kind` on `file`, from its start: the header only,
/// or the pixels too when `pixels` is set.
DecodeState runDecoder(const std::string &path, FILE *file,
                       ImageInfo::Kind kind, Pixels *pixels) {
  bool png = kind == ImageInfo::Kind::Png;
  DecodeState state;
  state.pixels = pixels;
  if (!(png ? runLibpng(file, state) : runLibjpeg(file, state)))
    fail(path, std::string("not a valid ") + (png ? "PNG" : "JPEG") +
                   " image: " + state.message);
  return state;
}

} // namespace

ImageInfo readImageInfo(const std::string &path) {
  // One open: the magic tells the format, then its decoder reads the
  // header from the start.
  File file = openImage(path);
  unsigned char magic[8] = {0};
  size_t got = std::fread(magic, 1, sizeof magic, file.get());
  static const unsigned char png[8] = {0x89, 'P',  'N',  'G',
                                       '\r', '\n', 0x1a, '\n'};
  ImageInfo info;
  if (got == 8 && std::memcmp(magic, png, 8) == 0)
    info.kind = ImageInfo::Kind::Png;
  else if (got >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff)
    info.kind = ImageInfo::Kind::Jpeg;
  else
    fail(path, "not a PNG or JPEG image (by its first bytes)");
  std::rewind(file.get());
  DecodeState state = runDecoder(path, file.get(), info.kind, nullptr);
  info.width = state.width;
  info.height = state.height;
  return info;
}

Pixels decodeImage(const std::string &path, const ImageInfo &info) {
  Pixels pixels;
  DecodeState state =
      runDecoder(path, openImage(path).get(), info.kind, &pixels);
  pixels.width = state.width;
  pixels.height = state.height;
  pixels.channels = state.channels;
  if (pixels.width != info.width || pixels.height != info.height)
    fail(path, "the image changed since the data set was opened: " +
                   std::to_string(pixels.width) + "x" +
                   std::to_string(pixels.height) + " pixels, not " +
                   std::to_string(info.width) + "x" +
                   std::to_string(info.height));
  return pixels;
}

std::unique_ptr<Dataset> openImageFolder(const std::string &root,
                                         const OpenOptions &options) {
  if (!options.labels.empty())
    fail(root, "an ImageFolder's labels are its class directories; a labels "
               "file ('" +
                   options.labels + "') is not used with it");
  if (options.model.c != 1 && options.model.c != 3)
    fail(root, "an ImageFolder gives images of 1 (gray) or 3 (RGB) "
               "channels, the model takes " +
                   toString(options.model));
  std::vector<std::string> classes = sortedEntries(
      root, [](const fs::directory_entry &e, std::error_code &ec) {
        return e.is_directory(ec);
      });
  if (classes.empty())
    fail(root, "no images: an ImageFolder holds one directory per class "
               "(root/<class>/<image>), and this one has none");
  if (classes.size() > size_t(INT32_MAX))
    fail(root, "too many classes");

  std::vector<ImageFile> files;
  for (size_t label = 0; label < classes.size(); ++label) {
    fs::path dir = fs::path(root) / classes[label];
    std::vector<std::string> paths = classImages(dir);
    if (paths.empty())
      fail(dir.string(), "no images in class '" + classes[label] +
                             "' (files ending .png, .jpg or .jpeg)");
    for (const std::string &path : paths)
      files.push_back({path, int32_t(label), readImageInfo(path)});
  }
  return std::make_unique<ImageFolder>(root, options.model, std::move(files),
                                       classes.size());
}

} // namespace hdrt::data
