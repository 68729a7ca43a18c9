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
  EXPECT_EQ(names.size(), 14u);
}

TEST(ReductionVariants, OnlyTheAtomicVariantMakesNoReproducibilityClaim) {
  for (Variant v : reduction::all_variants()) {
    EXPECT_EQ(reduction::reproducible(v), v != Variant::kSinglePassAtomic) << reduction::variant_name(v);
  }
}

}  // namespace
