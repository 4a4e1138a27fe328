// Results of cluster runs of the real image (Base image, AC2, +CompilerOpt,
// +CkptOpt on GPUs), brought in from CSV or JSON so they sit beside engine
// results in every chart and report. The accepted columns and fields are in
// docs/RESULTS.md; a bad file is refused with the line (CSV) or JSON path at
// fault, never partly imported.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"

namespace tb::bench {

/// One row per run; rows with the same label, model and GPU count are repeats
/// of one configuration and are summarised together.
[[nodiscard]] Expected<std::vector<ConfigurationResult>> parseClusterCsv(std::string_view text,
                                                                         std::string_view origin);

/// {"schema": "trainbench-cluster-results", "version": 1, "runs": [ … ]} with
/// the same fields as the CSV columns.
[[nodiscard]] Expected<std::vector<ConfigurationResult>> parseClusterJson(std::string_view text,
                                                                          std::string_view origin);

/// Reads a .csv or .json file (by suffix; anything else is refused).
[[nodiscard]] Expected<std::vector<ConfigurationResult>> importClusterResults(
    const std::filesystem::path& file);

}  // namespace tb::bench
