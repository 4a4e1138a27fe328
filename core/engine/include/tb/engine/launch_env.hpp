// The torchrun launch contract as plain C++: how a worker learns its place in a
// data-parallel group from its environment, and what a launcher must write so
// that it does. torchrun, `trainbench run --nproc-per-node`, Kubernetes indexed
// Jobs and Slurm scripts all speak it, so the engine reads one format whoever
// started it. Nothing here needs LibTorch; the process group is built from a
// LaunchEnv behind the engine's private headers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"

namespace tb::engine {

/// A worker's place in a data-parallel group, as torchrun (and `trainbench run
/// --nproc-per-node`, Kubernetes indexed Jobs, Slurm) tell it through the environment.
struct LaunchEnv {
  int rank = 0;                          ///< RANK: this worker among all workers
  int localRank = 0;                     ///< LOCAL_RANK: this worker on its node (picks the GPU)
  int worldSize = 1;                     ///< WORLD_SIZE
  int localWorldSize = 1;                ///< LOCAL_WORLD_SIZE: workers per node
  int groupRank = 0;                     ///< GROUP_RANK: the node's rank
  std::string masterAddr = "127.0.0.1";  ///< MASTER_ADDR: where the TCPStore listens
  std::uint16_t masterPort = 29500;      ///< MASTER_PORT
  /// TORCHELASTIC_USE_AGENT_STORE == "True": torchrun's agent (static rendezvous)
  /// already hosts the store, so every worker, rank 0 included, connects as a
  /// client under agentStorePrefix(); otherwise rank 0 must host it.
  bool useAgentStore = false;
  /// TORCHELASTIC_RESTART_COUNT: which attempt this is; each restart gets fresh store keys.
  int restartCount = 0;

  friend bool operator==(const LaunchEnv&, const LaunchEnv&) = default;

  /// The store key prefix torchrun's agent uses: "/worker/attempt_<restartCount>".
  [[nodiscard]] std::string agentStorePrefix() const;
};

/// Looks up one environment variable; nullopt when unset. Tests pass a map.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// The process environment (std::getenv).
[[nodiscard]] EnvLookup processEnvironment();

/// nullopt when the process was not launched as a worker (neither RANK nor
/// WORLD_SIZE set): a plain single-process run. Otherwise the parsed LaunchEnv,
/// or BadInput naming the variable and its value. A half-set or inconsistent
/// environment is refused here rather than left to hang in the rendezvous.
///
/// - RANK and WORLD_SIZE are both required once either is set.
/// - Numbers are decimal digits only (no sign, no spaces), as torchrun writes them.
/// - WORLD_SIZE >= 1 and 0 <= RANK < WORLD_SIZE.
/// - LOCAL_WORLD_SIZE defaults to WORLD_SIZE (one node) and must divide it;
///   LOCAL_RANK defaults to RANK % LOCAL_WORLD_SIZE (RANK on one node) and must
///   be below LOCAL_WORLD_SIZE.
/// - GROUP_RANK defaults to RANK / LOCAL_WORLD_SIZE and must be below the node
///   count WORLD_SIZE / LOCAL_WORLD_SIZE.
/// - MASTER_ADDR must not be empty (127.0.0.1 when unset); MASTER_PORT is
///   1..65535 (29500 when unset).
/// - TORCHELASTIC_USE_AGENT_STORE is "True"/"False" (torchrun's spelling; also
///   "true"/"false"/"1"/"0"); anything else is refused, because guessing wrong
///   makes rank 0 either fail to bind or nobody host the store.
/// - TORCHELASTIC_RESTART_COUNT is >= 0 (0 when unset).
[[nodiscard]] Expected<std::optional<LaunchEnv>> launchEnvFrom(const EnvLookup& lookup);

/// What a launcher sets for one worker: every variable launchEnvFrom reads,
/// plus ROLE_RANK, ROLE_WORLD_SIZE, ROLE_NAME=default, GROUP_WORLD_SIZE,
/// TORCHELASTIC_MAX_RESTARTS=0 and TORCHELASTIC_RUN_ID=none as torchrun's
/// static rendezvous does, so scripts written for torchrun see what they expect.
/// launchEnvFrom(toEnvironment(x)) == x for every valid x.
[[nodiscard]] std::map<std::string, std::string> toEnvironment(const LaunchEnv& env);

/// The network interfaces of this host that have an IPv4 or IPv6 address
/// (getifaddrs), by name, deduplicated, sorted. An interface without an
/// address is left out: neither Gloo nor NCCL can bind to it.
[[nodiscard]] std::vector<std::string> hostInterfaces();

/// GLOO_SOCKET_IFNAME as c10d's Python binding reads it (C++ callers of
/// ProcessGroupGloo get no such reading, so the engine does it), checked
/// against `interfaces` (hostInterfaces() in production) so a typo fails
/// before the rendezvous, not inside it.
///
/// A comma list of exact names, split as c10d splits it (a trailing comma adds
/// nothing; an empty name in the middle is an error). Unset, empty or a
/// 1-character value is ignored (c10d's `strlen > 1` rule). Every name must
/// exist, else BadInput
/// "GLOO_SOCKET_IFNAME: no network interface 'eth9' on this host (interfaces: eth0, lo)".
/// Returns the Gloo device names to create, in order (empty: use the default device).
[[nodiscard]] Expected<std::vector<std::string>> glooInterfaces(
    const EnvLookup& lookup, const std::vector<std::string>& interfaces);

/// NCCL_SOCKET_IFNAME as NCCL reads it, checked against `interfaces`: NCCL
/// itself only fails later, at communicator creation, with "no socket
/// interface found".
///
/// Unset, empty or a 1-character value is ignored (NCCL's own `strlen > 1`
/// rule). A comma list of prefixes; a leading '^' makes the whole list
/// exclusions (never an error: NCCL falls back to what is left), then a
/// leading '=' makes the names exact. Empty entries are skipped and ":N"
/// after a name is a port NCCL ignores for sockets. Each entry must match at
/// least one interface, else BadInput "NCCL_SOCKET_IFNAME: no network
/// interface starting with 'ib' on this host (interfaces: eth0, lo)" (with
/// '=': "no network interface 'eth9'"); a list that names nothing is refused too.
[[nodiscard]] Status checkNcclInterfaces(const EnvLookup& lookup,
                                         const std::vector<std::string>& interfaces);

}  // namespace tb::engine
