// The ablation as a table for people: one row per configuration in chain
// order, with the speedup over Base and over the step before it, which is
// what the chain is meant to show (each step faster than the one before).
#pragma once

#include <iosfwd>

#include "tb/bench/results.hpp"

namespace tb::cli {

/// Prints the configurations of `results` from `source` as an aligned
/// table: the engine's tokens/s are the run's, a cluster's are per GPU.
void printAblationTable(std::ostream& out, const bench::AblationResults& results,
                        bench::ResultSource source = bench::ResultSource::Engine);

}  // namespace tb::cli
