// The table of fuzz targets: one per parser of outside input, by name. Each
// libFuzzer binary (fuzz_main.cpp) runs one of them; the regression test
// replays the corpus and past findings through all of them in one process.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::fuzz {

struct Target {
  std::string name;  ///< fuzz_<name> is its binary, tests/fuzz/seeds.txt its seed files
  std::function<void(std::string_view)> run;
};

[[nodiscard]] const std::vector<Target>& targets();

/// nullptr for an unknown name.
[[nodiscard]] const Target* findTarget(std::string_view name);

}  // namespace tb::fuzz
