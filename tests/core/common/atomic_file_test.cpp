#include "tb/common/atomic_file.hpp"

#include <gtest/gtest.h>

#include <cerrno>

#include <filesystem>

namespace fs = std::filesystem;

namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb-atomic-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFileTest, WritesContentAndCreatesParents) {
  const fs::path target = dir_ / "a" / "b" / "out.json";
  ASSERT_TRUE(tb::writeFileAtomically(target, "{\"x\": 1}\n").ok());
  auto back = tb::readFile(target);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "{\"x\": 1}\n");
}

TEST_F(AtomicFileTest, ReplacesExistingFileAndLeavesNoTemporaries) {
  const fs::path target = dir_ / "out.txt";
  ASSERT_TRUE(tb::writeFileAtomically(target, "old").ok());
  ASSERT_TRUE(tb::writeFileAtomically(target, "new content").ok());
  EXPECT_EQ(*tb::readFile(target), "new content");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(AtomicFileTest, FailedRenameNamesThePathAndLeavesNoTemporary) {
  // A non-empty directory in the target's place makes rename(2) fail, even
  // for root, after the temporary file was fully written. A folder given as
  // the file is the user's to fix: bad input.
  const fs::path target = dir_ / "out.txt";
  fs::create_directories(target / "occupied");
  const tb::Status status = tb::writeFileAtomically(target, "replacement");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, tb::ErrorKind::BadInput);
  EXPECT_NE(status.error().message.find(target.string()), std::string::npos);
  EXPECT_TRUE(fs::is_directory(target / "occupied"));
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1) << "the temporary file must be removed";
}

TEST_F(AtomicFileTest, AParentThatIsAFileIsBadInputNamingIt) {
  fs::create_directories(dir_);
  ASSERT_TRUE(tb::writeFileAtomically(dir_ / "plain", "x").ok());
  const tb::Status status = tb::writeFileAtomically(dir_ / "plain" / "child.json", "{}");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, tb::ErrorKind::BadInput);
  EXPECT_NE(status.error().message.find((dir_ / "plain").string()), std::string::npos);
}

TEST(WriteFailureKind, WrongKindOfPathIsBadInputTheSystemIsIo) {
  for (const int code : {ENOTDIR, EISDIR, EEXIST}) {
    EXPECT_EQ(tb::writeFailureKind(code), tb::ErrorKind::BadInput) << code;
  }
  for (const int code : {ENOSPC, EROFS, EFBIG, EIO, EACCES, EDQUOT}) {
    EXPECT_EQ(tb::writeFailureKind(code), tb::ErrorKind::Io) << code;
  }
}

TEST_F(AtomicFileTest, ReadingAMissingFileNamesIt) {
  auto result = tb::readFile(dir_ / "missing.json");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, tb::ErrorKind::NotFound);
  EXPECT_NE(result.error().message.find("missing.json"), std::string::npos);
}

TEST_F(AtomicFileTest, ReadingADirectoryIsBadInput) {
  fs::create_directories(dir_);
  auto result = tb::readFile(dir_);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, tb::ErrorKind::BadInput);
}

}  // namespace
