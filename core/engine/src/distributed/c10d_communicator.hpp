// Joining a data-parallel group over LibTorch's c10d: the rendezvous store
// torchrun's contract asks for, and a Gloo process group over it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "distributed/communicator.hpp"
#include "tb/common/expected.hpp"
#include "tb/engine/launch_env.hpp"

namespace tb::engine {

/// How to join: the worker's place, the deadline of every wait, and the
/// network interfaces Gloo sends on (GLOO_SOCKET_IFNAME; empty: the default
/// device, this host's name resolved, else 127.0.0.1).
struct GroupSettings {
  LaunchEnv launch;
  std::chrono::milliseconds timeout{300000};
  std::vector<std::string> interfaces;
};

/// Connects to the store (or hosts it: rank 0 under torchrun's standalone /
/// c10d rendezvous, where the agent hosts none) and builds the Gloo group.
/// A store that cannot be reached within the timeout is a Runtime error
/// naming its address.
[[nodiscard]] Expected<std::unique_ptr<Communicator>> joinGlooGroup(const GroupSettings& settings);

}  // namespace tb::engine
