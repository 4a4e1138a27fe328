// The shared text rules: what cleanLine takes off a line and what it leaves,
// numbers as the frameworks print them, and the streaming line reader.
// Lines follow published Megatron, DeepSpeed, torchtitan and MLPerf
// excerpts (docs/LOG_FORMATS.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "line_reader.hpp"
#include "log_text.hpp"

namespace tb::logs::detail {
namespace {

namespace fs = std::filesystem;

std::string clean(std::string_view line) {
  std::string scratch;
  return std::string(cleanLine(line, scratch));
}

TEST(CleanLine, TakesOffTorchtitanColoursIncluding24Bit) {
  // torchtitan's Color codes: \033[31m … \033[39m, orange and turquoise
  // as 24-bit colours.
  EXPECT_EQ(clean("\x1b[31mstep: 10  \x1b[32mloss: 10.7069  \x1b[38;2;180;60;0mgrad_norm: 18.2500  "
                  "\x1b[38;2;54;234;195mmemory: 30.99GiB(32.62%)  \x1b[35mmfu: 41.19%\x1b[39m"),
            "step: 10  loss: 10.7069  grad_norm: 18.2500  memory: 30.99GiB(32.62%)  mfu: 41.19%");
  EXPECT_EQ(clean("\x1b[0m\x1b[1;33mwarn\x1b[0m"), "warn");
  EXPECT_EQ(clean("cut off\x1b[38;2"), "cut off");
}

TEST(CleanLine, TakesOffTrailingCarriageReturns) {
  EXPECT_EQ(clean("iteration 10\r"), "iteration 10");
  EXPECT_EQ(clean("loss: 1.0\r\n"), "loss: 1.0");
  EXPECT_EQ(clean("loss: 1.0\x1b[0m\r"), "loss: 1.0");
}

TEST(CleanLine, TakesOffTorchrunPrefixes) {
  EXPECT_EQ(
      clean("[rank0]:[titan] 2025-06-04 08:51:58,557 - root - INFO - step: 10  loss: 10.7069"),
      "[titan] 2025-06-04 08:51:58,557 - root - INFO - step: 10  loss: 10.7069");
  // The payload's own leading blank (Megatron's ` [date] iteration`) stays.
  EXPECT_EQ(clean("[default0]: [2026-09-11 12:06:52.987995] iteration        3/ 7629408 |"),
            " [2026-09-11 12:06:52.987995] iteration        3/ 7629408 |");
  EXPECT_EQ(clean("[rank12]:step: 1"), "step: 1");
}

TEST(CleanLine, TakesOffSrunTaskNumbers) {
  const std::string mllog =
      R"(:::MLLOG {"namespace": "", "time_ms": 1721026805975, "event_type": "POINT_IN_TIME", "key": "tracked_stats"})";
  EXPECT_EQ(clean("0: " + mllog), mllog);
  EXPECT_EQ(clean(" 0: " + mllog), mllog);
  EXPECT_EQ(clean("15: " + mllog), mllog);
}

TEST(CleanLine, TakesOffStackedPrefixes) {
  EXPECT_EQ(clean("0: [rank0]:[titan] x"), "[titan] x");
  EXPECT_EQ(clean(" 3: [default3]: [2024-09-03 15:54:54] iteration"),
            " [2024-09-03 15:54:54] iteration");
  EXPECT_EQ(clean("\x1b[0m[rank0]:step: 1"), "step: 1");
}

TEST(CleanLine, LeavesPayloadsThatOnlyLookLikePrefixes) {
  for (const char* line : {
           "[titan] 2026-01-09 19:02:58,105 - root - INFO - step: 100",
           "[Rank 0] step=10, skipped=10, lr=[0.0001], mom=[(0.9, 0.999)]",
           " [2024-09-03 15:54:54] iteration       10/  500000 |",
           "[2023-08-02 00:41:17,936] [INFO] [timer.py:215:stop] "
           "epoch=0/micro_step=10/global_step=10",
           "2026-01-09 19:02:58",
           "19:02:58 done",
           "epoch,global_step,lr",
           "[rank]:no rank number",
       })
    EXPECT_EQ(clean(line), line);
}

TEST(CleanLine, UsesTheScratchOnlyForEscapes) {
  std::string scratch;
  const std::string line = "[rank0]:step: 1";
  const std::string_view cleaned = cleanLine(line, scratch);
  EXPECT_EQ(cleaned, "step: 1");
  EXPECT_EQ(cleaned.data(), line.data() + 8);  // a view into the line, no copy
  EXPECT_TRUE(scratch.empty());
}

TEST(ParseLogNumber, ReadsWhatFrameworksPrint) {
  EXPECT_EQ(parseLogNumber("55,314"), 55314.0);  // torchtitan tps
  EXPECT_EQ(parseLogNumber("1,234,567.25"), 1234567.25);
  EXPECT_EQ(parseLogNumber("412.06"), 412.06);
  EXPECT_EQ(parseLogNumber("1.064275E+01"), 10.64275);  // Megatron lm loss
  EXPECT_EQ(parseLogNumber("6.976744E-07"), 6.976744e-07);
  EXPECT_EQ(parseLogNumber("0.000000E+00"), 0.0);
  EXPECT_EQ(parseLogNumber("3.922e-06"), 3.922e-06);
  EXPECT_EQ(parseLogNumber("220.69530887096045"), 220.69530887096045);  // DeepSpeed repr
  EXPECT_EQ(parseLogNumber("  8388608.0 "), 8388608.0);
  EXPECT_EQ(parseLogNumber("-3.5"), -3.5);
  EXPECT_EQ(parseLogNumber("+2"), 2.0);
  EXPECT_EQ(parseLogNumber(".5"), 0.5);
  EXPECT_EQ(parseLogNumber("41.66%"), 41.66);  // a percentage is kept as printed
  EXPECT_EQ(parseLogNumber(" 42.5 % "), 42.5);
}

TEST(ParseLogNumber, ReadsInfinitiesAndNaNs) {
  EXPECT_EQ(parseLogNumber("inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parseLogNumber("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(parseLogNumber("Infinity"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parseLogNumber("-Infinity"), -std::numeric_limits<double>::infinity());
  for (const char* text : {"nan", "NaN", "-nan"}) {
    const auto value = parseLogNumber(text);
    ASSERT_TRUE(value.has_value()) << text;
    EXPECT_TRUE(std::isnan(*value)) << text;
  }
}

TEST(ParseLogNumber, RefusesWhatIsNoNumber) {
  for (const char* text : {"", " ", "%", "abc", "N/A", "1,2", "12,34", "1,234,56", ",123", "1.2.3",
                           "1e", "0x10", "12 34", "1;2", "- 5", "GiB", "72.82GiB(91.97%)"})
    EXPECT_FALSE(parseLogNumber(text).has_value()) << "'" << text << "'";
}

TEST(ForEachField, SplitsKeyValueFields) {
  std::vector<std::pair<std::string, std::string>> fields;
  forEachField("lr: 3.922e-06 | global_batch_size: 8 |  flag  | train_step_timing in s: 2.505",
               " | ", [&](const LogField& field) { fields.emplace_back(field.key, field.value); });
  const std::vector<std::pair<std::string, std::string>> expected{
      {"lr", "3.922e-06"},
      {"global_batch_size", "8"},
      {"flag", ""},
      {"train_step_timing in s", "2.505"}};
  EXPECT_EQ(fields, expected);
}

class LineReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("tb-logs-lines-") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& bytes) {
    const fs::path file = dir_ / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  }

  static std::vector<std::string> readAll(LineReader& reader) {
    std::vector<std::string> lines;
    std::string_view line;
    while (reader.next(line)) lines.emplace_back(line);
    return lines;
  }

  fs::path dir_;
};

TEST_F(LineReaderTest, GivesLinesWithoutTheirLineEnds) {
  auto reader = LineReader::open(write("a.log", "one\ntwo\r\n\nlast"));
  ASSERT_TRUE(reader.ok());
  // "\r\n" is one line end, not a line end and an empty line.
  EXPECT_EQ(readAll(*reader), (std::vector<std::string>{"one", "two", "", "last"}));
  EXPECT_EQ(reader->lineNumber(), 4U);
  EXPECT_TRUE(reader->lastLineUnterminated());
  EXPECT_FALSE(reader->error().has_value());
  EXPECT_EQ(reader->bytesRead(), 14U);
}

TEST_F(LineReaderTest, ALoneCarriageReturnEndsALine) {
  // tqdm redraws its bar after a '\r'; another logger's line may follow the
  // last redraw on the same physical line.
  auto reader = LineReader::open(write(
      "bar.log",
      "  1%|1         | 1/100\r  2%|2         | 2/100\r[Rank 0] step=2, skipped=0\nnext\r\n"));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(readAll(*reader),
            (std::vector<std::string>{"  1%|1         | 1/100", "  2%|2         | 2/100",
                                      "[Rank 0] step=2, skipped=0", "next"}));
  EXPECT_EQ(reader->lineNumber(), 4U);
  EXPECT_FALSE(reader->lastLineUnterminated());
}

TEST_F(LineReaderTest, ACarriageReturnNewlineSplitAcrossChunksIsOneLineEnd) {
  // The first chunk (64 KiB) ends with the '\r' of "\r\n".
  const std::string first(65535, 'x');
  auto reader = LineReader::open(write("crlf.log", first + "\r\nnext\r"));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(readAll(*reader), (std::vector<std::string>{first, "next"}));
  EXPECT_EQ(reader->lineNumber(), 2U);
  EXPECT_FALSE(reader->lastLineUnterminated());  // a last '\r' ends the line
}

TEST_F(LineReaderTest, AFinalNewlineIsNoUnterminatedLine) {
  auto reader = LineReader::open(write("a.log", "one\ntwo\n"));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(readAll(*reader), (std::vector<std::string>{"one", "two"}));
  EXPECT_FALSE(reader->lastLineUnterminated());
}

TEST_F(LineReaderTest, ReadsLinesAcrossChunkBoundaries) {
  std::string text;
  const auto lineText = [](int i) {
    return "line " + std::to_string(i) + std::string(static_cast<std::size_t>(i % 97), '.');
  };
  for (int i = 0; i < 100000; ++i) text += lineText(i) + "\n";
  auto reader = LineReader::open(write("big.log", text));
  ASSERT_TRUE(reader.ok());
  std::string_view line;
  int i = 0;
  while (reader->next(line)) {
    ASSERT_EQ(line, lineText(i));
    ++i;
  }
  EXPECT_EQ(i, 100000);
  EXPECT_EQ(reader->bytesRead(), text.size());
  EXPECT_FALSE(reader->error().has_value());
}

TEST_F(LineReaderTest, ALineAtTheBoundIsRead) {
  auto reader =
      LineReader::open(write("a.log", std::string(LineReader::kMaxLineBytes, 'x') + "\nnext\n"));
  ASSERT_TRUE(reader.ok());
  const auto lines = readAll(*reader);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].size(), LineReader::kMaxLineBytes);
  EXPECT_EQ(lines[1], "next");
}

TEST_F(LineReaderTest, ALongerLineIsSkippedAndCounted) {
  // Another program's dump in the stream is skipped like its other lines;
  // the lines after it keep their numbers.
  const std::string longLine(3 * LineReader::kMaxLineBytes + 10, 'x');
  auto reader =
      LineReader::open(write("long.log", "ok\n" + longLine + "\nnext\n" + longLine + "\rlast\n"));
  ASSERT_TRUE(reader.ok());
  std::vector<std::string> lines;
  std::vector<std::uint64_t> numbers;
  std::string_view line;
  while (reader->next(line)) {
    lines.emplace_back(line);
    numbers.push_back(reader->lineNumber());
  }
  EXPECT_FALSE(reader->error().has_value()) << reader->error()->message;
  EXPECT_EQ(lines, (std::vector<std::string>{"ok", "next", "last"}));
  EXPECT_EQ(numbers, (std::vector<std::uint64_t>{1, 3, 5}));
  EXPECT_EQ(reader->skippedLongLines(), 2U);
  EXPECT_FALSE(reader->lastLineUnterminated());
}

TEST_F(LineReaderTest, ALongerLineTheFileEndsInIsSkippedAndUnterminated) {
  auto reader =
      LineReader::open(write("cut.log", "ok\n" + std::string(LineReader::kMaxLineBytes + 1, 'x')));
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(readAll(*reader), std::vector<std::string>{"ok"});
  EXPECT_FALSE(reader->error().has_value());
  EXPECT_EQ(reader->skippedLongLines(), 1U);
  EXPECT_TRUE(reader->lastLineUnterminated());
}

TEST_F(LineReaderTest, ANulByteUpFrontRefusesABinaryFile) {
  const fs::path file = write("ckpt.bin", std::string("PK\x03\x04\x14\x00\x00\x00", 8) + "rest\n");
  auto reader = LineReader::open(file);
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE(readAll(*reader).empty());
  ASSERT_TRUE(reader->error().has_value());
  EXPECT_EQ(reader->error()->kind, ErrorKind::Parse);
  EXPECT_NE(reader->error()->message.find(file.string()), std::string::npos);
  EXPECT_NE(reader->error()->message.find("binary file (NUL byte at byte offset 5)"),
            std::string::npos)
      << reader->error()->message;
}

TEST_F(LineReaderTest, ANulByteAfterTheProbeIsJustABadLine) {
  std::string text(5000, 'a');
  text += "\nb";
  text += '\0';
  text += "c\n";
  auto reader = LineReader::open(write("late.log", text));
  ASSERT_TRUE(reader.ok());
  const auto lines = readAll(*reader);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1], std::string("b\0c", 3));
  EXPECT_FALSE(reader->error().has_value());
}

TEST_F(LineReaderTest, AMissingFileIsNotFound) {
  auto reader = LineReader::open(dir_ / "nope.log");
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().kind, ErrorKind::NotFound);
  EXPECT_NE(reader.error().message.find("nope.log"), std::string::npos);
}

}  // namespace
}  // namespace tb::logs::detail
