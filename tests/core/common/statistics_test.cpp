// The median every summary in the project reports.
#include "tb/common/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(Median, OddCountsTakeTheMiddleAndEvenCountsTheMidpoint) {
  EXPECT_EQ(tb::median(std::vector<double>{}), 0.0);
  EXPECT_EQ(tb::median(std::vector<double>{4.0}), 4.0);
  EXPECT_EQ(tb::median(std::vector<double>{3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(tb::median(std::vector<double>{4.0, 1.0, 3.0, 2.0}), 2.5);
}

TEST(Median, TheCallersOrderIsLeftAlone) {
  const std::vector<double> values{5.0, 1.0, 4.0, 2.0, 3.0};
  EXPECT_EQ(tb::median(values), 3.0);
  EXPECT_EQ(values, (std::vector<double>{5.0, 1.0, 4.0, 2.0, 3.0}));
}

}  // namespace
