// The human-readable output of `trainbench compat`: a verdict block for one
// release, and a one-row-per-release report for --all.
#pragma once

#include <iosfwd>
#include <vector>

#include "compat_result.hpp"

namespace tb::cli {

/// Status line, the judged host with where each value came from, reasons,
/// warnings and what to do.
void printVerdict(std::ostream& out, const ReleaseVerdict& result, const JudgedHost& host);

/// Header with the host, then a table of every release's status and main reason.
void printReport(std::ostream& out, const catalog::Catalog& catalog,
                 const std::vector<ReleaseVerdict>& results, const JudgedHost& host);

}  // namespace tb::cli
