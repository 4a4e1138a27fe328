// A training framework's own log (read by core/logs) as a cluster run of the
// ablation: its median throughput per GPU, step time, largest memory and
// loss curve under an ablation label. One conversion for `trainbench import`,
// `trainbench report --import` and the Studio's Ablation page, so that a log
// reads the same everywhere.
#pragma once

#include <string>
#include <vector>

#include "tb/bench/cluster_import.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::bench {

/// The cluster run of one imported log under `label` (an ablation label,
/// any spelling parseAblationLabel reads). Refused (BadInput, naming the
/// file and the option that would help) when the file says nothing of the
/// GPU count or gives no throughput per GPU.
[[nodiscard]] Expected<ClusterRun> clusterRunFromLog(const logs::ImportedLog& imported,
                                                     const std::string& label,
                                                     const std::string& model);

/// Cluster runs grouped into configurations by the same rules as a cluster
/// file (one unit per configuration, …); `origin` names them in an error.
[[nodiscard]] Expected<std::vector<ConfigurationResult>> configurationsFromClusterRuns(
    const std::vector<ClusterRun>& runs, const std::string& origin);

}  // namespace tb::bench
