// The CSV and JSON readers both reduce a file to rows with a location each;
// grouping rows into configurations and every rule across rows live once, in
// cluster_rows.cpp, so the two formats cannot drift apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tb/bench/cluster_import.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"

namespace tb::bench::detail {

/// One imported run, with where it came from ("file:3" or "file: $.runs[2]").
struct ClusterRow : ClusterRun {
  std::string where;
};

/// Field names in the order the documentation lists them.
[[nodiscard]] const std::vector<std::string>& clusterFieldNames();

/// Groups rows into configurations; the error names the row and field at fault.
[[nodiscard]] Expected<std::vector<ConfigurationResult>> configurationsFromRows(
    const std::vector<ClusterRow>& rows);

}  // namespace tb::bench::detail
