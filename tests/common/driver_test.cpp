// common/driver.hpp without a GPU: a rung made from a Problem takes its bytes, FLOPs, poison,
// check and alternating inputs from the problem, and the answer checked follows the input set
// in the buffers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/driver.hpp"

namespace {

// A problem whose every call is recorded: what a lab's Problem offers the driver.
struct Recorded {
  std::vector<std::string> calls;
  cudalab::InputSets sets;  // no buffers: use() only changes which answer is current
  bool alternate = true;
  int answers[2] = {10, -10};
  int output = 0;

  double bytes() const { return 4096; }
  double flops() const { return 1024; }
  void poison() {
    calls.push_back("poison");
    output = 0x7F7F7F7F;
  }
  bool check(const std::string& variant) {
    calls.push_back("check " + variant);
    return output == cudalab::current_answer(&sets, answers[0], answers[1]);
  }
  cudalab::InputSets* replay_sets() { return alternate ? &sets : nullptr; }
  // A kernel that computes the answer for the inputs in the buffers now.
  void compute() { output = answers[sets.current()]; }
};

TEST(ProblemRung, TakesTheProblemsFactsAndTheVariantsLaunch) {
  Recorded p;
  int launches = 0;
  cudalab::Rung r = cudalab::problem_rung(p, "naive", [&] {
    ++launches;
    p.compute();
  });
  EXPECT_EQ(r.name, "naive");
  EXPECT_EQ(r.bytes, 4096.0);
  EXPECT_EQ(r.flops, 1024.0);
  EXPECT_FALSE(r.baseline);
  EXPECT_TRUE(r.fallback.empty());
  r.poison();
  EXPECT_FALSE(r.check());  // the poison is never the answer
  r.launch();
  EXPECT_EQ(launches, 1);
  EXPECT_TRUE(r.check());
  EXPECT_EQ(p.calls, (std::vector<std::string>{"poison", "check naive", "check naive"}));
}

TEST(ProblemRung, AlternatingInputsCatchAReplayedResult) {
  Recorded p;
  cudalab::Rung honest = cudalab::problem_rung(p, "honest", [&] { p.compute(); });
  ASSERT_TRUE(honest.refresh);  // the driver swaps the inputs before each timed launch
  int replayed = 0;
  bool first = true;
  cudalab::Rung replay = cudalab::problem_rung(p, "replay", [&] {  // computes once, then repeats itself
    if (first) p.compute();
    replayed = first ? p.output : replayed;
    p.output = replayed;
    first = false;
  });
  for (int rep = 0; rep < 4; ++rep) {
    honest.refresh(rep);
    EXPECT_EQ(p.sets.current(), rep % 2);
    honest.launch();
    EXPECT_TRUE(honest.check()) << rep;
  }
  replay.refresh(0);
  replay.launch();
  EXPECT_TRUE(replay.check());
  replay.refresh(1);
  replay.launch();
  EXPECT_FALSE(replay.check());  // the second set's answer is not the first's
}

TEST(ProblemRung, ABaselineIsCheckedAndTimedButNeverTheBest) {
  Recorded p;
  cudalab::Rung cub = cudalab::baseline_rung(p, "cub", [&] { p.compute(); });
  EXPECT_TRUE(cub.baseline);
  EXPECT_EQ(cub.bytes, 4096.0);
  ASSERT_TRUE(cub.refresh);  // on the same alternating inputs as the variants
  cub.launch();
  EXPECT_TRUE(cub.check());
  EXPECT_EQ(p.calls.back(), "check cub");
}

TEST(ProblemRung, OneInputSetMeansNoRefresh) {
  Recorded p;
  p.alternate = false;
  const cudalab::Rung r = cudalab::problem_rung(p, "sweep", [] {});
  EXPECT_FALSE(r.refresh);
}

TEST(CurrentAnswer, FollowsTheSetInTheBuffers) {
  cudalab::InputSets sets;
  const std::string a = "first", b = "second";
  EXPECT_EQ(cudalab::current_answer<std::string>(nullptr, a, b), "first");
  EXPECT_EQ(cudalab::current_answer(&sets, a, b), "first");
  sets.use(1);
  EXPECT_EQ(cudalab::current_answer(&sets, a, b), "second");
  sets.use(0);
  EXPECT_EQ(&cudalab::current_answer(&sets, a, b), &a);
}

// A problem whose check is cheap asks for it after every timed launch; one that does not, does not.
struct Cheap : Recorded {
  static constexpr bool kCheckEveryLaunch = true;
};

TEST(ProblemRung, ACheapCheckRunsAfterEveryTimedLaunch) {
  Cheap cheap;
  cudalab::Rung every = cudalab::problem_rung(cheap, "cheap", [&] { cheap.compute(); });
  ASSERT_TRUE(every.check_each);
  every.launch();
  EXPECT_TRUE(every.check_each(0));
  cheap.output = 0;  // a launch that wrote nothing new
  EXPECT_FALSE(every.check_each(1));
  EXPECT_EQ(cheap.calls, (std::vector<std::string>{"check cheap", "check cheap"}));
  Recorded plain;
  EXPECT_FALSE(cudalab::problem_rung(plain, "plain", [&] { plain.compute(); }).check_each);
  static_assert(cudalab::checks_every_launch<Cheap>::value && !cudalab::checks_every_launch<Recorded>::value);
}

}  // namespace
