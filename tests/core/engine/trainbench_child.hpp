// The built `trainbench` as a child process, for the engine tests that drive
// the real binary (TB_TRAINBENCH_BINARY): each suite gets its own scratch
// prefix and its own XDG data directory, so suites never see each other's runs.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tb/common/subprocess.hpp"

namespace tb::engine::test {

/// `trainbench arguments...` with $XDG_DATA_HOME under /tmp/<prefix>xdg.
inline ProcessResult runTrainbench(std::vector<std::string> arguments, const std::string& prefix,
                                   std::chrono::seconds timeout = std::chrono::seconds(120)) {
  arguments.insert(arguments.begin(), TB_TRAINBENCH_BINARY);
  ProcessOptions options;
  options.timeout = timeout;
  options.environment["XDG_DATA_HOME"] =
      (std::filesystem::temp_directory_path() / (prefix + "xdg")).string();
  auto result = runProcess(arguments, options);
  EXPECT_TRUE(result.ok());
  return result.ok() ? *result : ProcessResult{};
}

/// A fresh (emptied) /tmp/<prefix><name>.
inline std::string scratchDirectory(const std::string& prefix, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / (prefix + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

}  // namespace tb::engine::test
