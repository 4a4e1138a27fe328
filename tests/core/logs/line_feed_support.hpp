// Feeds a text to one LineFormat the way the importer does — line by line
// (a line ends at "\n", "\r\n" or a lone '\r', as LineReader has it), each
// cleaned by cleanLine (ANSI, launcher prefixes), then finish() saying
// whether the text ended mid-line — with the records kept in a vector, so a
// format's tests do not depend on the importer's collector.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format_parser.hpp"
#include "log_text.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::test {

class VectorSink final : public detail::StepSink {
 public:
  void add(const runs::ImportedStep& step) override { steps.push_back(step); }
  std::vector<runs::ImportedStep> steps;
};

struct FedLines {
  Status status;  ///< the first error of feed() or finish(), else ok
  runs::ImportedRun run;
  std::vector<runs::ImportedStep> steps;
};

inline FedLines feedText(detail::LineFormat& format, std::string_view text) {
  FedLines out;
  VectorSink sink;
  std::string scratch;
  std::uint64_t lineNumber = 0;
  bool endedMidLine = false;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find_first_of("\r\n", start);
    std::string_view line;
    if (end == std::string_view::npos) {
      // As the importer: a cut last line is not fed, finish() is told.
      endedMidLine = true;
      break;
    } else {
      line = text.substr(start, end - start);
      start = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    }
    ++lineNumber;
    if (Status status = format.feed(detail::cleanLine(line, scratch), lineNumber, sink); !status) {
      out.status = status;
      out.steps = std::move(sink.steps);
      return out;
    }
  }
  out.status = format.finish(out.run, endedMidLine, sink);
  out.steps = std::move(sink.steps);
  return out;
}

inline std::filesystem::path fixture(std::string_view relative) {
  return std::filesystem::path(TB_LOG_FIXTURES) / std::filesystem::path(relative);
}

inline std::string readFixture(std::string_view relative) {
  std::ifstream in(fixture(relative), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Feeds a fixture file to a fresh format made by `make(origin)`.
template <class Make>
FedLines feedFixture(Make make, std::string_view relative) {
  auto format = make(fixture(relative).string());
  return feedText(*format, readFixture(relative));
}

/// A fresh folder under the temporary directory, removed with everything
/// in it when the test ends.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tb-logs-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// Writes `text` to `name` below the folder, making its parents.
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace tb::logs::test
