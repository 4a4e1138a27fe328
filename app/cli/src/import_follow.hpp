// `trainbench import … --follow`: the logs followed as their runs write
// them (tb/logs/log_follow.hpp), a line (or a JSON object) per update.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "command.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::cli {

struct FollowRequest {
  std::vector<std::string> paths;
  std::vector<std::string> labels;  ///< one per path
  logs::ImportOptions options;
  std::string model;
  std::string out;  ///< rewritten after each update; empty: none
  bool json = false;
  std::chrono::milliseconds interval{1000};
};

/// Follows until every run ended or SIGINT/SIGTERM (exit 0), or a file
/// cannot be read on (its error's exit code; --out keeps the last update).
[[nodiscard]] int followImports(const CommandContext& context, const FollowRequest& request);

}  // namespace tb::cli
