// A real one-host Slurm for the tests: Debian's slurmctld and slurmd with a
// munged of their own, every file (configuration, key, socket, state, spool,
// logs) under a temporary folder, on free loopback ports, so that nothing of
// the machine's own Slurm or munge is touched. The daemons are stopped by
// the pids in their pid files when the fixture goes, whatever happened.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tb/common/subprocess.hpp"

namespace tb::cli::test {

/// What `scontrol show job` says of a job.
struct SlurmJobState {
  std::string state;      ///< "PENDING", "RUNNING", "COMPLETED", "CANCELLED", "FAILED", …
  std::string startTime;  ///< "2026-12-06T03:40:55", or "Unknown"
  std::string endTime;
  std::string reason;
};

class OneHostSlurm {
 public:
  OneHostSlurm() = default;
  OneHostSlurm(const OneHostSlurm&) = delete;
  OneHostSlurm& operator=(const OneHostSlurm&) = delete;
  ~OneHostSlurm();

  /// Starts munged, slurmctld and slurmd under `dir` and waits (with a
  /// deadline) for the node to be idle. The error says which step failed,
  /// with the daemon's log.
  [[nodiscard]] std::optional<std::string> start(const std::filesystem::path& dir);

  /// Cancels every job and stops the daemons (SIGTERM, then SIGKILL).
  void stop();

  /// The environment a Slurm command needs: SLURM_CONF.
  [[nodiscard]] std::map<std::string, std::string> environment() const;

  /// Runs a Slurm command (sbatch, scancel, …) against this cluster.
  [[nodiscard]] ProcessResult run(const std::vector<std::string>& argv) const;

  /// The job's state, or nothing when the controller does not know it.
  [[nodiscard]] std::optional<SlurmJobState> job(const std::string& id) const;

 private:
  std::filesystem::path dir_;
  bool started_ = false;
};

/// Whether Debian's slurm-wlm and munge are installed.
[[nodiscard]] bool slurmInstalled();

}  // namespace tb::cli::test
