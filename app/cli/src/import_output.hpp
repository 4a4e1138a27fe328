// What `trainbench import` says of its imports, once or (with --follow) at
// every update: the table and the JSON fields (docs/CLI.md), and the
// cluster-results file --out writes.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "output.hpp"
#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::cli {

/// The newest finite loss of the run's curve, if any.
[[nodiscard]] std::optional<double> lastLoss(const runs::ImportedRun& run);
/// One import's JSON object, as `import --json` lists them under "runs".
[[nodiscard]] Json importToJson(const logs::ImportedLog& imported, const std::string& label);
/// The table of imports with, under it, what each file lacked and why.
void printImports(std::ostream& out, const std::vector<logs::ImportedLog>& imports,
                  const std::vector<std::string>& labels);
/// A rounded number, or "-" for none.
[[nodiscard]] std::string orDash(const std::optional<double>& value, int decimals = 1);
/// Writes the cluster-results file of `imports` atomically, after reading
/// it back through the cluster reader (its rules across runs apply), so
/// what is written is what `report --cluster` and the ablation accept.
[[nodiscard]] Status writeClusterFile(const std::vector<logs::ImportedLog>& imports,
                                      const std::vector<std::string>& labels,
                                      const std::string& model, const std::string& out);

}  // namespace tb::cli
