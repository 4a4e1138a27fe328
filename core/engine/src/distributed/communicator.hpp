// What data-parallel training asks of the processes it runs in: sum a
// contiguous slice of a flat buffer across ranks (started now, waited for
// later, so backward goes on while it travels), broadcast, barrier, small
// facts through the rendezvous store, and a way to give up. One interface so
// that the training loop is written once for Gloo on the CPU and NCCL on a
// GPU; c10d itself (and its 1.13 / 2.x differences) lives in one file behind
// it, c10d_communicator.cpp.
//
// Every wait has a deadline: a peer that died or hangs ends the wait with a
// CollectiveError naming the operation, never a hang.
#pragma once

#include <ATen/ATen.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace tb::engine {

/// A collective that failed or ran past its deadline; what() names the
/// operation, this rank and, where the store could tell, the ranks that
/// stopped answering.
class CollectiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A collective in flight. wait() returns once it completed on this rank, or
/// throws CollectiveError.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  virtual void wait() = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int worldSize() const = 0;
  /// The longest any collective or store call may wait.
  [[nodiscard]] virtual std::chrono::milliseconds timeout() const = 0;

  /// Starts summing `slice` (contiguous, float32) over all ranks, in place.
  /// Every rank must start the same collectives in the same order; `what`
  /// ("gradient bucket 3 of step 7") is what an error will call it.
  [[nodiscard]] virtual std::unique_ptr<PendingCollective> allReduceSum(at::Tensor slice,
                                                                        std::string what) = 0;
  /// Copies rank `root`'s `buffer` (contiguous) to every rank; waits.
  virtual void broadcast(at::Tensor buffer, int root, const std::string& what) = 0;
  /// `buffer` (contiguous) is worldSize() equal shards, rank r's own at
  /// r × numel / worldSize; fills every shard from its owner, in place; waits.
  /// ZeRO-1 gathers its updated weights this way.
  virtual void allGather(at::Tensor buffer, const std::string& what) = 0;
  /// Returns once every rank got here.
  virtual void barrier(const std::string& what) = 0;

  /// Small facts every rank must agree on (the run directory), through the
  /// rendezvous store; fetch waits up to timeout() for the key to appear.
  virtual void publish(const std::string& key, const std::string& value) = 0;
  [[nodiscard]] virtual std::string fetch(const std::string& key) = 0;

  /// After a failure: no further collective is started and nothing waits on
  /// the ones in flight at teardown, so the process can report and exit.
  virtual void abort() noexcept = 0;
};

}  // namespace tb::engine
