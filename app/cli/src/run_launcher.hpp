// `trainbench run --nproc-per-node N`: the launcher, as torchrun's agent is
// one. It hosts the rendezvous store on node 0, starts N workers of this same
// binary with the torchrun environment (tb/engine/launch_env.hpp) and the
// user's command line less the launcher's own options, follows each
// worker's event stream, forwards SIGINT/SIGTERM, stops everyone when one
// fails, and ends with one summary of the whole run.
#pragma once

#include <cstdint>
#include <string>

#include "command.hpp"

namespace tb::cli {

/// The launcher's own options (stripped from the workers' command line).
struct LaunchOptions {
  int nprocPerNode = 0;
  int nnodes = 1;
  int nodeRank = 0;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 29500;  ///< 0 on a single node: a free port
};

/// What the run's own output options asked for.
struct LaunchOutput {
  bool json = false;
  std::string events;  ///< --events target: "-", a file, or empty
  double distTimeoutSeconds = 300.0;
  bool cuda = false;  ///< --device cuda: NCCL_SOCKET_IFNAME is checked too
};

/// Runs the group and returns the exit code: 0 when every worker completed;
/// otherwise the first failing worker's code (128 + signal when a signal
/// ended it), with its rank named on stderr; 2 for bad launcher values.
int launchWorkers(const CommandContext& context, const LaunchOptions& launch,
                  const LaunchOutput& output);

}  // namespace tb::cli
