// The loss curve comes from the records kept for curves (every record up to
// a bound, evenly thinned beyond it), with each record's own step, so runs
// that log every 10 or every 100 steps line up on one axis.
#include "tb/bench/imported_logs.hpp"

#include <cmath>

#include "cluster_rows.hpp"
#include "tb/bench/ablation.hpp"
#include "tb/common/text.hpp"
#include "tb/common/units.hpp"

namespace tb::bench {

Expected<ClusterRun> clusterRunFromLog(const logs::ImportedLog& imported, const std::string& label,
                                       const std::string& model) {
  const runs::ImportedRun& run = imported.run;
  const auto step = parseAblationLabel(label);
  if (!step) {
    return makeError(ErrorKind::BadInput,
                     "label " + label +
                         ": not an ablation label (Base, AC2, AC2+CompilerOpt, "
                         "AC2+CompilerOpt+CkptOpt)");
  }
  if (!run.worldSize) {
    return makeError(
        ErrorKind::BadInput,
        run.source + ": the file does not say how many GPUs the job ran on; give --gpus N");
  }
  ClusterRun row;
  row.label = std::string(bench::label(*step));
  row.model = model;
  row.gpus = *run.worldSize;
  row.tokensPerSPerGpu = imported.medians.tokensPerSecondPerGpu;
  row.tflopsPerGpu = imported.medians.tflopsPerGpu;
  row.stepTimeS = imported.medians.stepTimeSeconds;
  row.excludedSeconds = imported.excludedSeconds;
  row.excludedKinds = imported.excludedKinds;
  if (imported.peakMemoryBytes) row.peakMemoryGib = *imported.peakMemoryBytes / kGiB;
  if (!row.tokensPerSPerGpu && !row.tflopsPerGpu) {
    std::string why = run.source + ": no throughput per GPU can be derived from it";
    if (!imported.hints.empty()) why += " (" + joinList(imported.hints, "; ") + ")";
    return makeError(ErrorKind::BadInput, why);
  }
  for (const runs::ImportedStep& record : run.steps) {
    if (!record.loss || !std::isfinite(*record.loss)) continue;
    row.lossSteps.push_back(record.step);
    row.lossCurve.push_back(*record.loss);
  }
  row.notes = run.format + " log " + run.source + ", " + std::to_string(run.records) +
              " records, medians after the first " + std::to_string(imported.skippedRecords) +
              (run.partial ? "; partial: " + run.partialReason : std::string());
  return row;
}

Expected<std::vector<ConfigurationResult>> configurationsFromClusterRuns(
    const std::vector<ClusterRun>& runs, const std::string& origin) {
  std::vector<detail::ClusterRow> rows;
  for (const ClusterRun& run : runs) {
    detail::ClusterRow row;
    static_cast<ClusterRun&>(row) = run;
    row.where = origin.empty() ? run.label : origin;
    rows.push_back(std::move(row));
  }
  return detail::configurationsFromRows(rows);
}

}  // namespace tb::bench
