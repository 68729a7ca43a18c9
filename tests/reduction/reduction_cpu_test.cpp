// reduction without a GPU: the variant table and its claims.
#include <gtest/gtest.h>

#include <set>

#include "reduction.hpp"

namespace {

using reduction::Variant;

TEST(ReductionVariants, NamesRoundTripAndAreUnique) {
  std::set<std::string> names;
  for (Variant v : reduction::all_variants()) {
    Variant p{};
    ASSERT_TRUE(reduction::parse_variant(reduction::variant_name(v), &p));
    EXPECT_EQ(p, v);
    EXPECT_TRUE(names.insert(reduction::variant_name(v)).second);
    EXPECT_FALSE(reduction::variant_summary(v).empty());
  }
  EXPECT_GE(names.size(), 14u);  // the notes' two, the twelve classic steps; a new variant adds to them
}

TEST(ReductionVariants, OnlyTheAtomicVariantMakesNoReproducibilityClaim) {
  for (Variant v : reduction::all_variants()) {
    EXPECT_EQ(reduction::traits(v).reproducible, v != Variant::kSinglePassAtomic) << reduction::variant_name(v);
  }
}

TEST(ReductionVariants, VectorLoadVariantsFallBackOnAMisalignedInputAndSayWhy) {
  alignas(16) static const float data[8] = {};
  for (Variant v : reduction::all_variants()) {
    EXPECT_EQ(reduction::fallback(v, data), "") << reduction::variant_name(v);
    const std::string why = reduction::fallback(v, data + 1);
    EXPECT_EQ(why.empty(), !reduction::traits(v).vector_loads) << reduction::variant_name(v);
  }
  EXPECT_TRUE(reduction::traits(Variant::kVectorized).vector_loads);
  EXPECT_TRUE(reduction::traits(Variant::kSinglePass).one_launch);
  EXPECT_FALSE(reduction::traits(Variant::kWarpShuffle).one_launch);
  EXPECT_TRUE(reduction::traits(Variant::kGmemNotes).cold_launch_timed);
}

}  // namespace
