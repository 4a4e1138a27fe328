// Opening libraries at run time: a missing one is named, a present one
// hands out its functions, an absent function is null (the callers then
// say which one the installed library lacks).
#include <gtest/gtest.h>

#include <cstring>

#include "tb/common/shared_library.hpp"

namespace {

TEST(SharedLibrary, AMissingLibraryIsNamed) {
  auto library = tb::SharedLibrary::open("libtrainbench-no-such-library.so.7");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.error().kind, tb::ErrorKind::Runtime);
  EXPECT_EQ(library.error().message, "libtrainbench-no-such-library.so.7 not found");
}

TEST(SharedLibrary, APresentLibraryHandsOutItsFunctions) {
  auto library = tb::SharedLibrary::open("libc.so.6");
  ASSERT_TRUE(library.ok()) << library.error().message;
  const auto length = library->symbol<decltype(&std::strlen)>("strlen");
  ASSERT_NE(length, nullptr);
  EXPECT_EQ(length("trainbench"), 10U);
  EXPECT_EQ(library->symbol<void (*)()>("tb_no_such_function"), nullptr);
  // Moved, the handle goes with it and is closed once.
  tb::SharedLibrary moved = std::move(*library);
  EXPECT_NE(moved.symbol<decltype(&std::strlen)>("strlen"), nullptr);
}

TEST(SharedLibrary, AFileThatIsNoLibrarySaysWhy) {
  auto library = tb::SharedLibrary::open(TB_SOURCE_DIR "/README.md");
  ASSERT_FALSE(library.ok());
  EXPECT_NE(library.error().message.find("cannot be loaded"), std::string::npos)
      << library.error().message;
}

}  // namespace
