// Driver versions are what users type and what nvidia-smi prints; the verdict
// compares them against minimums such as 535.86, so both the refusals and the
// numeric (not textual) ordering matter.
#include "tb/catalog/driver_version.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using tb::catalog::DriverVersion;
using testing::HasSubstr;

DriverVersion version(const char* text) {
  auto parsed = DriverVersion::parse(text);
  EXPECT_TRUE(parsed.ok()) << text;
  return parsed.ok() ? parsed.value() : DriverVersion{};
}

TEST(DriverVersion, AcceptsTwoParts) {
  const auto v = version("570.26");
  EXPECT_EQ(v.major(), 570);
  EXPECT_EQ(v.minor(), 26);
  EXPECT_FALSE(v.patch().has_value());
  EXPECT_EQ(v.text(), "570.26");
}

TEST(DriverVersion, AcceptsThreePartsAndKeepsLeadingZerosForDisplay) {
  const auto v = version("535.104.05");
  EXPECT_EQ(v.major(), 535);
  EXPECT_EQ(v.minor(), 104);
  EXPECT_EQ(v.patch(), 5);
  EXPECT_EQ(v.text(), "535.104.05");
}

TEST(DriverVersion, TrimsSurroundingWhitespaceAsCommandOutputHasIt) {
  EXPECT_EQ(version(" 570.124.06\n").text(), "570.124.06");
}

TEST(DriverVersion, RefusesMalformedTextAndNamesIt) {
  for (const char* bad : {"570", "570.x", "", "1.2.3.4", "-570.1", "570..1", "abc", "0.57"}) {
    const auto parsed = DriverVersion::parse(bad);
    ASSERT_FALSE(parsed.ok()) << "accepted '" << bad << "'";
    EXPECT_EQ(parsed.error().kind, tb::ErrorKind::BadInput);
    EXPECT_THAT(parsed.error().message, HasSubstr("'" + std::string(bad) + "'"));
  }
}

TEST(DriverVersion, OrdersNumericallyPartByPart) {
  EXPECT_LT(version("535.85.12"), version("535.86"));
  EXPECT_LT(version("535.86"), version("535.104.05")) << "104 > 86 as numbers, not as text";
  EXPECT_LT(version("535.104.05"), version("545.23"));
  EXPECT_GT(version("570.124.06"), version("570.26"));
}

TEST(DriverVersion, MissingPatchOrdersAsZero) {
  EXPECT_EQ(version("570.26"), version("570.26.0"));
  EXPECT_LT(version("570.26"), version("570.26.1"));
  EXPECT_EQ(version("535.104.05"), version("535.104.5"));
}

}  // namespace
