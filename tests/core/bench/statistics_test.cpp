// Medians over repeats are the headline numbers of every chart.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tb/bench/statistics.hpp"

namespace tb::bench {
namespace {

TEST(Summarize, OddCountTakesTheMiddleValue) {
  const std::vector<double> values = {5.0, 1.0, 3.0};
  const auto summary = summarize(values);
  ASSERT_TRUE(summary);
  EXPECT_DOUBLE_EQ(summary->median, 3.0);
  EXPECT_DOUBLE_EQ(summary->min, 1.0);
  EXPECT_DOUBLE_EQ(summary->max, 5.0);
  EXPECT_EQ(summary->count, 3u);
}

TEST(Summarize, EvenCountTakesTheMidpoint) {
  const std::vector<double> values = {4.0, 1.0, 2.0, 10.0};
  const auto summary = summarize(values);
  ASSERT_TRUE(summary);
  EXPECT_DOUBLE_EQ(summary->median, 3.0);
}

TEST(Summarize, MedianIsNotMovedByOneOutlier) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(100.0, 1.0);
  std::vector<double> values;
  for (int i = 0; i < 21; ++i) values.push_back(noise(rng));
  const double before = summarize(values)->median;
  values.front() = 1e9;
  const double after = summarize(values)->median;
  EXPECT_NEAR(before, after, 2.0);
}

TEST(Summarize, RefusesEmptyAndNonFiniteInput) {
  EXPECT_FALSE(summarize(std::vector<double>{}));
  const std::vector<double> bad = {1.0, std::numeric_limits<double>::quiet_NaN()};
  const auto result = summarize(bad);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::BadInput);
  EXPECT_NE(result.error().message.find("not a finite"), std::string::npos);
}

TEST(Speedup, IsTheRatioOfMedians) {
  const Summary base{100.0, 90.0, 110.0, 3};
  const Summary tuned{150.0, 140.0, 160.0, 3};
  EXPECT_DOUBLE_EQ(speedup(base, tuned), 1.5);
  EXPECT_DOUBLE_EQ(speedup(Summary{}, tuned), 0.0);
}

}  // namespace
}  // namespace tb::bench
