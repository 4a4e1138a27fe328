#include "tb/common/text.hpp"

#include <gtest/gtest.h>

namespace {

TEST(Text, TrimRemovesSurroundingWhitespaceOnly) {
  EXPECT_EQ(tb::trim("  570.26 \n"), "570.26");
  EXPECT_EQ(tb::trim(""), "");
  EXPECT_EQ(tb::trim(" a b "), "a b");
}

TEST(Text, SplitKeepsEmptyFields) {
  const auto parts = tb::split("a,,b,", ',');
  ASSERT_EQ(parts.size(), 4U);
  EXPECT_EQ(parts[0], "a");
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(parts[2], "b");
  EXPECT_EQ(parts[3], "");
}

TEST(Text, ParseUnsignedAcceptsDigitsOnly) {
  EXPECT_EQ(tb::parseUnsigned("0575"), 575);
  EXPECT_FALSE(tb::parseUnsigned("").has_value());
  EXPECT_FALSE(tb::parseUnsigned("-1").has_value());
  EXPECT_FALSE(tb::parseUnsigned("12a").has_value());
  EXPECT_FALSE(tb::parseUnsigned("1234567890123456789").has_value());
}

TEST(Text, JoinListAndLower) {
  EXPECT_EQ(tb::joinList({"25.04", "25.06"}), "25.04, 25.06");
  EXPECT_EQ(tb::joinList({}), "");
  EXPECT_EQ(tb::toLower("NVIDIA H100"), "nvidia h100");
}

}  // namespace
