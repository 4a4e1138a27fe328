// The fuzz targets in the ordinary test suite: every name in targets.txt has
// its entry in the table (and the other way round), and every seed file and
// every input a fuzzer once found (regressions/NAME/*, each named after what
// it found) goes through its target without a crash, here and under the
// asan preset's sanitizers. libFuzzer itself runs on demand and briefly in
// CI (tests/fuzz/run-fuzz.sh, docs/RELIABILITY.md).
#include <gtest/gtest.h>

#include <fnmatch.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_targets.hpp"

namespace tb::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = TB_SOURCE_DIR;

struct Entry {
  std::string name;
  std::string dictionary;
  std::vector<std::string> seeds;
};

std::vector<Entry> readTargetsFile() {
  std::ifstream in(kRoot / "tests/fuzz/targets.txt");
  std::vector<Entry> entries;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream words(line);
    Entry entry;
    words >> entry.name >> entry.dictionary;
    for (std::string glob; words >> glob;) entry.seeds.push_back(glob);
    entries.push_back(entry);
  }
  return entries;
}

/// The files a pattern of targets.txt names: '*' within one path component.
std::vector<fs::path> expand(const std::string& pattern) {
  std::vector<fs::path> matched{kRoot};
  for (const fs::path& part : fs::path(pattern)) {
    std::vector<fs::path> next;
    for (const fs::path& base : matched) {
      if (part.string().find('*') == std::string::npos) {
        if (fs::exists(base / part)) next.push_back(base / part);
        continue;
      }
      if (!fs::is_directory(base)) continue;
      for (const auto& entry : fs::directory_iterator(base)) {
        if (fnmatch(part.c_str(), entry.path().filename().c_str(), 0) == 0) {
          next.push_back(entry.path());
        }
      }
    }
    matched = std::move(next);
  }
  std::vector<fs::path> files;
  for (const fs::path& path : matched) {
    if (fs::is_regular_file(path)) files.push_back(path);
  }
  return files;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(FuzzTargets, EveryListedTargetIsInTheTableAndEveryTableEntryListed) {
  std::set<std::string> listed;
  for (const Entry& entry : readTargetsFile()) {
    EXPECT_TRUE(listed.insert(entry.name).second) << entry.name << " listed twice";
    EXPECT_NE(findTarget(entry.name), nullptr) << entry.name << " has no entry in fuzz_targets.cpp";
    if (entry.dictionary != "-") {
      EXPECT_TRUE(fs::is_regular_file(kRoot / "tests/fuzz/dict" / entry.dictionary))
          << entry.dictionary;
    }
  }
  for (const Target& target : targets()) {
    EXPECT_TRUE(listed.count(target.name) == 1) << target.name << " is not in targets.txt";
  }
}

TEST(FuzzTargets, EverySeedAndEveryPastFindingGoesThroughItsTarget) {
  std::size_t inputs = 0;
  for (const Entry& entry : readTargetsFile()) {
    const Target* target = findTarget(entry.name);
    ASSERT_NE(target, nullptr) << entry.name;
    std::vector<fs::path> files;
    for (const std::string& glob : entry.seeds) {
      for (const fs::path& file : expand(glob)) files.push_back(file);
    }
    const fs::path regressions = kRoot / "tests/fuzz/regressions" / entry.name;
    if (fs::is_directory(regressions)) {
      for (const auto& found : fs::directory_iterator(regressions)) files.push_back(found.path());
    }
    for (const fs::path& file : files) {
      SCOPED_TRACE(entry.name + " <- " + file.string());
      target->run(slurp(file));
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 100u);
}

}  // namespace
}  // namespace tb::fuzz
