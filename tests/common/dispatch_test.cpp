// common/dispatch.hpp: a run-time value to the compile-time constant or type a template is built
// for, and one error naming the list for anything else.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/dispatch.hpp"

namespace {

using Loads = cudalab::int_list<1, 2, 4, 8, 16>;

struct Pair {
  std::uint32_t x, y;
};
struct Quad {
  std::uint32_t x, y, z, w;
};
using Widths = cudalab::type_list<std::uint32_t, Pair, Quad>;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(Dispatch, EveryValueOfTheListReachesItsOwnConstant) {
  for (int v : {1, 2, 4, 8, 16}) {
    const int got = cudalab::dispatch(Loads{}, v, "loads", [](auto l) {
      static_assert(std::is_same_v<decltype(l), std::integral_constant<int, decltype(l)::value>>);
      return decltype(l)::value * 100;
    });
    EXPECT_EQ(got, v * 100);
  }
}

TEST(Dispatch, AValueOutsideTheListIsRefusedWithTheList) {
  for (int v : {0, 3, -1, 32}) {
    EXPECT_EQ(message_of([v] { cudalab::dispatch(Loads{}, v, "load_point: loads per thread", [](auto) {}); }),
              "load_point: loads per thread must be 1, 2, 4, 8 or 16")
        << v;
  }
  EXPECT_EQ(message_of([] { cudalab::dispatch(cudalab::int_list<7>{}, 6, "x", [](auto) { return 0; }); }),
            "x must be 7");
  EXPECT_EQ(message_of([] { cudalab::dispatch(cudalab::int_list<1, 2>{}, 3, "x", [](auto) {}); }), "x must be 1 or 2");
}

TEST(Dispatch, VoidFunctionsRunOnceForTheirValue) {
  int calls = 0, seen = 0;
  cudalab::dispatch(Loads{}, 8, "loads", [&](auto l) {
    ++calls;
    seen = decltype(l)::value;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, 8);
}

TEST(Dispatch, TypesAreChosenBySize) {
  for (std::size_t bytes : {4u, 8u, 16u}) {
    const std::size_t got = cudalab::dispatch_by_size(Widths{}, bytes, "width", [](auto t) {
      return sizeof(typename decltype(t)::type);
    });
    EXPECT_EQ(got, bytes);
  }
  EXPECT_TRUE(cudalab::dispatch_by_size(Widths{}, 8, "width", [](auto t) {
    return std::is_same_v<typename decltype(t)::type, Pair>;
  }));
  EXPECT_EQ(message_of([] { cudalab::dispatch_by_size(Widths{}, 12, "load_point: the load width", [](auto) {}); }),
            "load_point: the load width must be 4, 8 or 16 bytes");
}

TEST(Dispatch, ContainsAgreesWithTheList) {
  EXPECT_TRUE(cudalab::contains(Loads{}, 16));
  EXPECT_FALSE(cudalab::contains(Loads{}, 12));
  static_assert(cudalab::contains(cudalab::int_list<64, 128>{}, 128));
  EXPECT_NO_THROW(cudalab::require(Loads{}, 4, "loads"));
  EXPECT_EQ(message_of([] { cudalab::require(Loads{}, 5, "loads"); }), "loads must be 1, 2, 4, 8 or 16");
}

}  // namespace
