// The labels are an interface shared with cluster imports and reports, and
// the schedule decides whether machine drift biases one configuration.
#include <gtest/gtest.h>

#include <algorithm>

#include "tb/bench/ablation.hpp"

namespace tb::bench {
namespace {

TEST(AblationLabels, CanonicalLabelsRoundTrip) {
  for (const AblationStep step : kAblationSteps) {
    const auto parsed = parseAblationLabel(label(step));
    ASSERT_TRUE(parsed.has_value()) << label(step);
    EXPECT_EQ(*parsed, step);
  }
}

TEST(AblationLabels, AcceptsTheSpellingsPeopleUse) {
  EXPECT_EQ(parseAblationLabel("base"), AblationStep::Base);
  EXPECT_EQ(parseAblationLabel(" ac2 "), AblationStep::Ac2);
  EXPECT_EQ(parseAblationLabel("+CompilerOpt"), AblationStep::CompilerOpt);
  EXPECT_EQ(parseAblationLabel("AC2 + Compiler-Opt"), AblationStep::CompilerOpt);
  EXPECT_EQ(parseAblationLabel("+CkptOpt"), AblationStep::CkptOpt);
  EXPECT_EQ(parseAblationLabel("ac2+compileropt+ckptopt"), AblationStep::CkptOpt);
}

TEST(AblationLabels, RefusesOtherWords) {
  EXPECT_FALSE(parseAblationLabel("fast").has_value());
  EXPECT_FALSE(parseAblationLabel("").has_value());
  EXPECT_FALSE(parseAblationLabel("AC3").has_value());
}

TEST(AblationFlags, OnlyTheLastStepLetsThePlannerChooseRecomputation) {
  for (const AblationStep step : kAblationSteps) {
    const std::vector<std::string> flags = engineRunFlags(step);
    const auto recompute = std::find(flags.begin(), flags.end(), "--recompute");
    ASSERT_NE(recompute, flags.end());
    ASSERT_NE(recompute + 1, flags.end());
    EXPECT_EQ(*(recompute + 1), step == AblationStep::CkptOpt ? "auto" : "full");
  }
  const std::vector<std::string> base = engineRunFlags(AblationStep::Base);
  EXPECT_NE(std::find(base.begin(), base.end(), "stock"), base.end());
}

TEST(AblationSchedule, InterleavesEveryConfigurationPerRepeat) {
  const std::vector<ScheduledRun> schedule = interleavedSchedule(3);
  ASSERT_EQ(schedule.size(), 12u);
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    EXPECT_EQ(schedule[i].step, kAblationSteps[i % 4]);
    EXPECT_EQ(schedule[i].repeat, static_cast<int>(i / 4));
  }
  EXPECT_TRUE(interleavedSchedule(0).empty());
}

}  // namespace
}  // namespace tb::bench
