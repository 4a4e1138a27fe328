// The store a data-parallel run's workers meet at, hosted by their launcher
// (`trainbench run --nproc-per-node`, on node 0) exactly as torchrun's agent
// hosts it: workers connect as clients and put their keys under
// "/worker/attempt_<restart>" (LaunchEnv::agentStorePrefix). A plain handle,
// so the CLI hosts it without seeing c10d.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "tb/common/expected.hpp"

namespace tb::engine {

class RendezvousStore {
 public:
  /// Listens on `port` (0: a free one) on every address of this host.
  /// A port in use is a Runtime error naming it.
  [[nodiscard]] static Expected<RendezvousStore> host(std::uint16_t port,
                                                      std::chrono::milliseconds timeout);

  RendezvousStore(RendezvousStore&&) noexcept;
  RendezvousStore& operator=(RendezvousStore&&) noexcept;
  ~RendezvousStore();

  /// The port it listens on (the one chosen when asked for 0).
  [[nodiscard]] std::uint16_t port() const;

 private:
  struct Impl;
  explicit RendezvousStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tb::engine
