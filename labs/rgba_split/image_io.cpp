#include "image_io.hpp"

#include <png.h>
// jpeglib.h needs FILE and size_t declared first.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <csetjmp>
#include <fstream>
#include <vector>
#include <jpeglib.h>

#include <fmt/format.h>

#include "common/cuda_check.hpp"

namespace rgba_split {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw cudalab::UsageError(fmt::format("cannot read image '{}': {}", path, why));
}

// libpng reports fatal errors through png_error, which must not return: it longjmps back to
// read_png's setjmp, with the message kept here. Warnings are ignored.
struct PngErrors {
  char message[256] = {};
};

void png_fatal(png_structp png, png_const_charp message) {
  auto* errors = static_cast<PngErrors*>(png_get_error_ptr(png));
  std::snprintf(errors->message, sizeof errors->message, "%s", message);
  png_longjmp(png, 1);
}

void png_quiet(png_structp, png_const_charp) {}

// The image's own samples, 8 bits per channel, RGBA: palette and low-bit gray expanded, gray
// copied to R, G and B, a tRNS chunk turned into alpha, opaque alpha added where there is none,
// 16-bit samples scaled to 8 bits (v * 255 / 65535, rounded). No gamma or colour-space
// conversion, whatever gAMA, sRGB, cHRM or iCCP chunks say: the planes are the samples.
RgbaImage read_png(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) fail(path, std::strerror(errno));
  RgbaImage out;  // constructed before setjmp, so a longjmp skips no destructor
  std::vector<png_bytep> rows;
  PngErrors errors;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &errors, png_fatal, png_quiet);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::fclose(file);
    fail(path, "out of memory");
  }
  if (setjmp(png_jmpbuf(png)) != 0) {
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(file);
    fail(path, std::string(errors.message) + " (truncated or corrupt PNG data)");
  }
  png_init_io(png, file);
  png_read_info(png, info);
  const png_byte color = png_get_color_type(png, info);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS) != 0) png_set_tRNS_to_alpha(png);
  if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
  if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  if ((color & PNG_COLOR_MASK_ALPHA) == 0 && png_get_valid(png, info, PNG_INFO_tRNS) == 0) {
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  out.width = png_get_image_width(png, info);
  out.height = png_get_image_height(png, info);
  if (static_cast<double>(out.width) * static_cast<double>(out.height) > static_cast<double>(1u << 30)) {
    png_error(png, "more than 2^30 pixels");
  }
  const std::size_t stride = png_get_rowbytes(png, info);
  if (stride != 4 * out.width) png_error(png, "unexpected row layout after conversion to RGBA");
  out.rgba.resize(stride * out.height);
  rows.resize(out.height);
  for (std::size_t y = 0; y < out.height; ++y) rows[y] = out.rgba.data() + y * stride;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(file);
  return out;
}

// libjpeg reports fatal errors by calling error_exit, which must not return: jump back to
// read_jpeg's setjmp. Only trivially destructible objects live between setjmp and longjmp.
struct JpegErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_error_exit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings (e.g. "premature end of JPEG file") are counted, as libjpeg's own handler does,
// but not printed.
void jpeg_silent(j_common_ptr cinfo, int msg_level) {
  if (msg_level < 0) ++cinfo->err->num_warnings;
}

RgbaImage read_jpeg(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) fail(path, std::strerror(errno));
  RgbaImage out;  // constructed before setjmp, so a longjmp skips no destructor
  jpeg_decompress_struct cinfo;
  JpegErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = jpeg_error_exit;
  err.pub.emit_message = jpeg_silent;
  bool truncated = false;
  if (setjmp(err.jump) != 0) {
    jpeg_destroy_decompress(&cinfo);
    std::fclose(file);
    fail(path, err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_stdio_src(&cinfo, file);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = JCS_RGB;
  jpeg_start_decompress(&cinfo);
  out.width = cinfo.output_width;
  out.height = cinfo.output_height;
  out.rgba.assign(out.width * out.height * 4, 255);
  std::vector<std::uint8_t>& rgba = out.rgba;
  // One RGB row buffer, then expanded to RGBA.
  JSAMPARRAY row = (*cinfo.mem->alloc_sarray)(reinterpret_cast<j_common_ptr>(&cinfo), JPOOL_IMAGE,
                                               cinfo.output_width * 3, 1);
  while (cinfo.output_scanline < cinfo.output_height) {
    const std::size_t y = cinfo.output_scanline;
    jpeg_read_scanlines(&cinfo, row, 1);
    for (std::size_t x = 0; x < out.width; ++x) {
      std::memcpy(&rgba[(y * out.width + x) * 4], &row[0][x * 3], 3);
    }
  }
  // libjpeg pads a truncated file with grey and warns; a truncated photo is an error here.
  truncated = err.pub.num_warnings > 0;
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  std::fclose(file);
  if (truncated) fail(path, "the JPEG data is incomplete (truncated file?)");
  return out;
}

}  // namespace

RgbaImage read_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "no such file or not readable");
  unsigned char magic[8] = {};
  in.read(reinterpret_cast<char*>(magic), sizeof magic);
  const std::streamsize got = in.gcount();
  in.close();
  static const unsigned char kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (got == 8 && std::memcmp(magic, kPng, 8) == 0) return read_png(path);
  if (got >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) return read_jpeg(path);
  fail(path, got == 0 ? "the file is empty" : "not a PNG or JPEG file");
}

void write_gray_png(const std::string& path, const std::uint8_t* plane, std::size_t width, std::size_t height) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_GRAY;
  if (png_image_write_to_file(&image, path.c_str(), 0, plane, 0, nullptr) == 0) {
    throw cudalab::UsageError(fmt::format("cannot write '{}': {}", path, image.message));
  }
}

void write_rgba_png(const std::string& path, const RgbaImage& img) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(img.width);
  image.height = static_cast<png_uint_32>(img.height);
  image.format = PNG_FORMAT_RGBA;
  if (png_image_write_to_file(&image, path.c_str(), 0, img.rgba.data(), 0, nullptr) == 0) {
    throw cudalab::UsageError(fmt::format("cannot write '{}': {}", path, image.message));
  }
}

void make_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    throw cudalab::UsageError(fmt::format("cannot create output directory '{}': {}", dir, ec.message()));
  }
}

}  // namespace rgba_split
