// A run's summary as `trainbench run` prints it without --json, for one
// process and for a launcher's whole data-parallel run alike.
#pragma once

#include <ostream>

#include "tb/runs/run_summary.hpp"

namespace tb::cli {

void printRunSummary(std::ostream& out, const runs::RunSummary& summary);

}  // namespace tb::cli
