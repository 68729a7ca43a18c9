#pragma once
// Reading photos and writing planes for rgba_split: PNG through libpng, JPEG through libjpeg.
// Every failure (missing, truncated or not-an-image file) throws cudalab::UsageError with one
// line naming the file and the reason; nothing here exits or crashes.
#include <cstdint>
#include <string>
#include <vector>

namespace rgba_split {

struct RgbaImage {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // width * height * 4 bytes, row-major
};

// Reads a PNG or JPEG (chosen by the file's first bytes, not its name) as 8-bit RGBA.
// Grayscale, palette and 16-bit PNGs are converted; JPEG gets alpha = 255.
RgbaImage read_image(const std::string& path);

// Creates `dir` and its parents when missing; a UsageError naming it when that fails or it is
// not a directory.
void make_output_dir(const std::string& dir);

// Writes one 8-bit plane as a grayscale PNG.
void write_gray_png(const std::string& path, const std::uint8_t* plane, std::size_t width, std::size_t height);

// Writes an RGBA image as PNG (used by the tests to make inputs).
void write_rgba_png(const std::string& path, const RgbaImage& image);

}  // namespace rgba_split
