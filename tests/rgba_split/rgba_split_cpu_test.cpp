// rgba_split without a GPU: the reference, the notes' grid arithmetic, and image files.
#include <gtest/gtest.h>
#include <png.h>

#include <cstdio>
#include <csetjmp>
#include <filesystem>
#include <fstream>
#include <jpeglib.h>
#include <set>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/random.hpp"
#include "image_io.hpp"
#include "reference.hpp"
#include "rgba_split.hpp"

namespace fs = std::filesystem;

namespace {

using rgba_split::Variant;

TEST(RgbaReference, SplitsChannels) {
  const std::vector<std::uint8_t> rgba{1, 2, 3, 4, 5, 6, 7, 8};
  std::uint8_t r[2], g[2], b[2], a[2];
  rgba_split::reference(rgba.data(), 2, r, g, b, a);
  EXPECT_EQ(r[0], 1);
  EXPECT_EQ(r[1], 5);
  EXPECT_EQ(g[1], 6);
  EXPECT_EQ(b[0], 3);
  EXPECT_EQ(a[1], 8);
}

// A timed launch's fresh image is every byte plus a number, modulo 256; the check expects the
// planes of the image as given, rotated the same way (the split only moves bytes).
TEST(RgbaReference, ThePlanesOfARotatedImageAreTheRotatedPlanes) {
  const std::size_t pixels = 1000;
  const std::vector<std::uint8_t> rgba = cudalab::random_bytes(4 * pixels, 9);
  const rgba_split::HostPlanes planes = rgba_split::reference_planes(rgba.data(), pixels);
  for (std::uint64_t shift : {std::uint64_t{1}, std::uint64_t{129}, std::uint64_t{255}}) {
    const std::vector<std::uint8_t> moved = rgba_split::rotated(rgba, shift);
    const rgba_split::HostPlanes got = rgba_split::reference_planes(moved.data(), pixels);
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(got[c], rgba_split::rotated(planes[c], shift)) << c << " " << shift;
      EXPECT_NE(got[c], planes[c]) << c << " " << shift;
      EXPECT_EQ(rgba_split::rotated(got[c], 256 - shift), planes[c]);  // undone
    }
  }
}

TEST(RgbaGrid, TheNotes76x62Example) {
  // 76 x 62 with 16 x 16 blocks: 5 x 4 = 20 blocks, 5120 threads, 408 idle (7.97%).
  const auto l = rgba_split::plan_launch(Variant::kNaive, 76, 62);
  EXPECT_EQ(l.geometry.grid_x, 5);
  EXPECT_EQ(l.geometry.grid_y, 4);
  EXPECT_EQ(l.geometry.blocks(), 20);
  EXPECT_EQ(l.geometry.threads(), 5120);
  EXPECT_EQ(l.geometry.idle_slots(), 408);
  EXPECT_NEAR(l.geometry.idle_percent(), 7.97, 0.005);
  EXPECT_EQ(l.geometry.describe("pixels"),
            "5 x 4 = 20 blocks of 16 x 16 threads, 5120 threads for 4712 pixels, 408 idle (7.97%)");
  EXPECT_FALSE(l.rows_looped);
}

TEST(RgbaGrid, EightByEightBlocksIdleTheSame) {
  // The notes' Q1: 8 x 8 blocks -> 10 x 8 = 80 blocks, still 5120 threads and 408 idle.
  const auto g = cudalab::geometry_2d(76, 62, 8, 8);
  EXPECT_EQ(g.blocks(), 80);
  EXPECT_EQ(g.threads(), 5120);
  EXPECT_EQ(g.idle_slots(), 408);
}

TEST(RgbaGrid, TallImagesLoopOverRows) {
  // 2,000,000 rows need 125,000 block rows; gridDim.y stops at 65535.
  const auto l = rgba_split::plan_launch(Variant::kNaive, 1, 2000000);
  EXPECT_TRUE(l.rows_looped);
  EXPECT_EQ(l.grid.y, 65535u);
  EXPECT_EQ(l.geometry.grid_y, 125000);
  const auto flat = rgba_split::plan_launch(Variant::kX16, 1, 2000000);
  EXPECT_EQ(flat.grid.y, 1u);
  EXPECT_EQ(flat.grid.x, (2000000u + 4095u) / 4096u);
}

TEST(RgbaGrid, OneDimensionalVariantsCoverEveryPixel) {
  for (Variant v : rgba_split::all_variants()) {
    if (rgba_split::is_2d(v)) continue;
    for (std::size_t pixels : {std::size_t{1}, std::size_t{15}, std::size_t{4097}, std::size_t{1} << 24}) {
      const auto l = rgba_split::plan_launch(v, pixels, 1);
      const auto capacity = static_cast<std::size_t>(l.grid.x) * l.block.x * rgba_split::pixels_per_thread(v);
      EXPECT_GE(capacity, pixels) << rgba_split::variant_name(v) << " " << pixels;
      EXPECT_GE(l.grid.x, 1u);
    }
  }
}

TEST(RgbaVariants, NamesRoundTrip) {
  // every variant has a name of its own (the count grows with the table)
  std::set<std::string> names;
  for (Variant v : rgba_split::all_variants()) names.insert(rgba_split::variant_name(v));
  EXPECT_EQ(names.size(), rgba_split::all_variants().size());
  EXPECT_GE(names.size(), 2u);
  for (Variant v : rgba_split::all_variants()) {
    Variant parsed{};
    ASSERT_TRUE(rgba_split::parse_variant(rgba_split::variant_name(v), &parsed));
    EXPECT_EQ(parsed, v);
    EXPECT_FALSE(rgba_split::variant_summary(v).empty());
  }
}

// ---- image files ----

class ImageFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rgba_split_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static void truncate_to_half(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), {});
    in.close();
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size() / 2));
  }
  fs::path dir_;
};

TEST_F(ImageFiles, PngRoundTrip) {
  rgba_split::RgbaImage img;
  img.width = 33;
  img.height = 7;
  img.rgba = cudalab::random_bytes(33 * 7 * 4, 5);
  rgba_split::write_rgba_png(path("in.png"), img);
  const auto back = rgba_split::read_image(path("in.png"));
  EXPECT_EQ(back.width, 33u);
  EXPECT_EQ(back.height, 7u);
  EXPECT_EQ(back.rgba, img.rgba);
}

TEST_F(ImageFiles, GrayPlaneReadsBackAsGrey) {
  const std::vector<std::uint8_t> plane{0, 50, 100, 150, 200, 250};
  rgba_split::write_gray_png(path("g.png"), plane.data(), 3, 2);
  const auto back = rgba_split::read_image(path("g.png"));
  ASSERT_EQ(back.rgba.size(), 24u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(back.rgba[4 * i + 0], plane[i]);
    EXPECT_EQ(back.rgba[4 * i + 1], plane[i]);
    EXPECT_EQ(back.rgba[4 * i + 3], 255);
  }
}

// A PNG written with libpng's own writer: `channels` samples per pixel (1 gray, 2 gray+alpha,
// 3 RGB, 4 RGBA) of `depth` bits, big-endian for 16 bits, with an optional gAMA or sRGB chunk.
enum class Chunk { kNone, kGamma, kSrgb };

void write_png_samples(const std::string& path, int width, int height, int channels, int depth,
                       const std::vector<std::uint16_t>& samples, Chunk chunk) {
  static const int kColor[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                               PNG_COLOR_TYPE_RGB_ALPHA};
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_init_io(png, f);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), depth, kColor[channels],
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (chunk == Chunk::kGamma) png_set_gAMA_fixed(png, info, 100000);  // linear: a reader that applies it changes samples
  if (chunk == Chunk::kSrgb) png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  png_write_info(png, info);
  const int bytes = depth / 8;
  std::vector<png_byte> row(static_cast<std::size_t>(width * channels * bytes));
  for (int y = 0; y < height; ++y) {
    for (int i = 0; i < width * channels; ++i) {
      const std::uint16_t v = samples[static_cast<std::size_t>(y * width * channels + i)];
      if (bytes == 2) {
        row[static_cast<std::size_t>(2 * i)] = static_cast<png_byte>(v >> 8);
        row[static_cast<std::size_t>(2 * i + 1)] = static_cast<png_byte>(v & 0xFF);
      } else {
        row[static_cast<std::size_t>(i)] = static_cast<png_byte>(v);
      }
    }
    png_write_row(png, row.data());
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(f);
}

TEST_F(ImageFiles, PngSamplesAreReadAsTheyAreForEveryColourTypeDepthAndGammaChunk) {
  // 8-bit values v and their 16-bit forms v * 257 (exactly v after scaling), plus 0x8000 -> 128.
  const std::vector<std::uint8_t> v8{0, 1, 17, 64, 100, 128, 200, 254, 255, 128};
  for (int depth : {8, 16}) {
    for (int channels = 1; channels <= 4; ++channels) {
      for (Chunk chunk : {Chunk::kNone, Chunk::kGamma, Chunk::kSrgb}) {
        const int width = static_cast<int>(v8.size()), height = 2;
        std::vector<std::uint16_t> samples;
        std::vector<std::uint8_t> expected;  // RGBA
        for (int p = 0; p < width * height; ++p) {
          std::uint8_t px[4];
          for (int c = 0; c < channels; ++c) {
            const std::size_t k = static_cast<std::size_t>(p + 3 * c) % v8.size();
            const bool half = depth == 16 && k == v8.size() - 1;
            samples.push_back(depth == 8 ? v8[k] : half ? std::uint16_t{0x8000} : static_cast<std::uint16_t>(v8[k] * 257));
            px[c] = v8[k];
          }
          const bool gray = channels <= 2, alpha = channels % 2 == 0;
          expected.push_back(px[0]);
          expected.push_back(gray ? px[0] : px[1]);
          expected.push_back(gray ? px[0] : px[2]);
          expected.push_back(alpha ? px[channels - 1] : 255);
        }
        const std::string name = "c" + std::to_string(channels) + "d" + std::to_string(depth) + "k" +
                                 std::to_string(static_cast<int>(chunk)) + ".png";
        write_png_samples(path(name), width, height, channels, depth, samples, chunk);
        const auto back = rgba_split::read_image(path(name));
        ASSERT_EQ(back.width, static_cast<std::size_t>(width)) << name;
        ASSERT_EQ(back.height, static_cast<std::size_t>(height)) << name;
        EXPECT_EQ(back.rgba, expected) << name;
      }
    }
  }
}

TEST_F(ImageFiles, BadFilesAreUsageErrors) {
  EXPECT_THROW(rgba_split::read_image(path("missing.png")), cudalab::UsageError);
  { std::ofstream(path("empty.png")); }
  EXPECT_THROW(rgba_split::read_image(path("empty.png")), cudalab::UsageError);
  { std::ofstream(path("text.png")) << "this is not an image, whatever the name says\n"; }
  EXPECT_THROW(rgba_split::read_image(path("text.png")), cudalab::UsageError);
  rgba_split::RgbaImage img;
  img.width = 64;
  img.height = 64;
  img.rgba = cudalab::random_bytes(64 * 64 * 4, 9);
  rgba_split::write_rgba_png(path("cut.png"), img);
  truncate_to_half(path("cut.png"));
  try {
    rgba_split::read_image(path("cut.png"));
    FAIL() << "a truncated PNG was accepted";
  } catch (const cudalab::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cut.png"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

// Writes a JPEG with libjpeg (the suite itself only reads JPEG).
void write_jpeg(const std::string& p, std::size_t w, std::size_t h, const std::vector<std::uint8_t>& rgb) {
  jpeg_compress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_compress(&cinfo);
  std::FILE* f = std::fopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  jpeg_stdio_dest(&cinfo, f);
  cinfo.image_width = static_cast<JDIMENSION>(w);
  cinfo.image_height = static_cast<JDIMENSION>(h);
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 100, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(&rgb[cinfo.next_scanline * w * 3]);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::fclose(f);
}

TEST_F(ImageFiles, JpegIsReadAsOpaqueRgba) {
  const std::size_t w = 40, h = 24;
  std::vector<std::uint8_t> rgb(w * h * 3);
  for (std::size_t i = 0; i < w * h; ++i) {  // flat colour: JPEG keeps it almost exactly
    rgb[3 * i + 0] = 200;
    rgb[3 * i + 1] = 100;
    rgb[3 * i + 2] = 30;
  }
  write_jpeg(path("photo.jpg"), w, h, rgb);
  const auto img = rgba_split::read_image(path("photo.jpg"));
  ASSERT_EQ(img.width, w);
  ASSERT_EQ(img.height, h);
  for (std::size_t i = 0; i < w * h; ++i) {
    ASSERT_NEAR(img.rgba[4 * i + 0], 200, 3);
    ASSERT_NEAR(img.rgba[4 * i + 1], 100, 3);
    ASSERT_NEAR(img.rgba[4 * i + 2], 30, 3);
    ASSERT_EQ(img.rgba[4 * i + 3], 255);
  }
}

TEST_F(ImageFiles, TruncatedJpegIsAUsageError) {
  const std::size_t w = 256, h = 256;
  write_jpeg(path("cut.jpg"), w, h, cudalab::random_bytes(w * h * 3, 3));
  truncate_to_half(path("cut.jpg"));
  EXPECT_THROW(rgba_split::read_image(path("cut.jpg")), cudalab::UsageError);
}

}  // namespace
