// Three significant figures in binary units, the same text in every locale.
#include "tb/common/units.hpp"

#include <gtest/gtest.h>

namespace {

TEST(Units, BytesAreWrittenWithThreeSignificantFigures) {
  EXPECT_EQ(tb::formatBytes(0), "0 B");
  EXPECT_EQ(tb::formatBytes(640), "640 B");
  EXPECT_EQ(tb::formatBytes(1536), "1.50 KiB");
  EXPECT_EQ(tb::formatBytes(12 * 1024 * 1024 + 1024 * 100), "12.1 MiB");
  EXPECT_EQ(tb::formatBytes(512ULL * 1024 * 1024), "512 MiB");
  EXPECT_EQ(tb::formatBytes(3ULL << 29), "1.50 GiB");
  EXPECT_EQ(tb::formatBytes(80ULL << 40), "80.0 TiB");
  EXPECT_EQ(tb::formatBytes((1ULL << 20) - 1), "1.00 MiB");  // not "1024 KiB"
  EXPECT_EQ(tb::kGiB, 1073741824.0);
}

}  // namespace
