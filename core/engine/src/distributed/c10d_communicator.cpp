// The only file that includes c10d. Debian's LibTorch 1.13 ships c10d with
// Gloo only (no ProcessGroupNCCL, no MPI), Gloo 1.13 has no AVG and no
// reduce-scatter, and the 2.x headers moved ProcessGroupGloo under a Backend
// base and c10::optional to std::optional. As used here (TCPStore and its
// options, PrefixStore, ProcessGroupGloo and its Options, Work) both versions
// read the same; a difference that does not belongs in this file.
//
// The store follows torchrun's rules (torch/distributed/rendezvous.py,
// _create_c10d_store): under the agent's store every worker is a client and
// prefixes its keys with /worker/attempt_<restart>; otherwise rank 0 hosts a
// multi-tenant store at MASTER_ADDR:MASTER_PORT.
#include "distributed/c10d_communicator.hpp"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <thread>
#include <utility>
#include <vector>

#include "tb/engine/rendezvous_store.hpp"

namespace tb::engine {
namespace {

using Clock = std::chrono::steady_clock;

/// How long a failed rank waits for the others to report their own failure,
/// so that its message can name the ranks that did not (dead or stopped).
constexpr std::chrono::milliseconds kReportWindow{2000};
/// Keys of this engine, apart from the ones Gloo puts in the same store.
constexpr const char* kKeyPrefix = "trainbench";

std::string messageOf(const std::exception& error) {
  const auto* torchError = dynamic_cast<const c10::Error*>(&error);
  return torchError != nullptr ? torchError->what_without_backtrace() : error.what();
}

std::string storeAddress(const LaunchEnv& launch) {
  return launch.masterAddr + ":" + std::to_string(launch.masterPort);
}

class GlooCommunicator;

class GlooPending final : public PendingCollective {
 public:
  GlooPending(GlooCommunicator& owner, c10::intrusive_ptr<c10d::Work> work, std::string what)
      : owner_(&owner), work_(std::move(work)), what_(std::move(what)) {}
  void wait() override;

 private:
  GlooCommunicator* owner_;
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
};

class GlooCommunicator final : public Communicator {
 public:
  GlooCommunicator(c10::intrusive_ptr<c10d::Store> store,
                   c10::intrusive_ptr<c10d::ProcessGroupGloo> group, const GroupSettings& settings)
      : store_(std::move(store)),
        group_(std::move(group)),
        rank_(settings.launch.rank),
        world_(settings.launch.worldSize),
        timeout_(settings.timeout),
        address_(storeAddress(settings.launch)) {}

  ~GlooCommunicator() override {
    // A group whose peers failed may still have work queued on its threads,
    // each bound only by Gloo's timeout; destroying it would join them. An
    // aborted group is left to the process's exit instead.
    if (aborted_) {
      (void)group_.release();
      (void)store_.release();
    }
  }

  int rank() const override { return rank_; }
  int worldSize() const override { return world_; }
  std::chrono::milliseconds timeout() const override { return timeout_; }

  std::unique_ptr<PendingCollective> allReduceSum(at::Tensor slice, std::string what) override {
    checkUsable(what);
    std::vector<at::Tensor> tensors{std::move(slice)};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::SUM;
    auto work = guarded(what, [&] { return group_->allreduce(tensors, options); });
    return std::make_unique<GlooPending>(*this, std::move(work), std::move(what));
  }

  void broadcast(at::Tensor buffer, int root, const std::string& what) override {
    checkUsable(what);
    std::vector<at::Tensor> tensors{std::move(buffer)};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    GlooPending(*this, guarded(what, [&] { return group_->broadcast(tensors, options); }), what)
        .wait();
  }

  /// One broadcast per shard, all in flight at once, rather than Gloo's
  /// allgather: that one lands in a temporary of the whole buffer before
  /// copying out, the size of the weights, which is most of what sharding
  /// the moments saves. The bytes each rank receives are the same.
  void allGather(at::Tensor buffer, const std::string& what) override {
    checkUsable(what);
    const std::int64_t shard = buffer.numel() / world_;
    if (!buffer.is_contiguous() || shard * world_ != buffer.numel()) {
      throw std::logic_error(what + ": " + std::to_string(buffer.numel()) + " elements are not " +
                             std::to_string(world_) + " equal shards");
    }
    std::vector<GlooPending> pieces;
    pieces.reserve(static_cast<std::size_t>(world_));
    for (int owner = 0; owner < world_; ++owner) {
      std::vector<at::Tensor> tensors{buffer.narrow(0, owner * shard, shard)};
      c10d::BroadcastOptions options;
      options.rootRank = owner;
      pieces.emplace_back(*this, guarded(what, [&] { return group_->broadcast(tensors, options); }),
                          what);
    }
    for (GlooPending& piece : pieces) piece.wait();
  }

  void barrier(const std::string& what) override {
    checkUsable(what);
    GlooPending(*this, guarded(what, [&] { return group_->barrier(); }), what).wait();
  }

  void publish(const std::string& key, const std::string& value) override {
    guarded("publishing " + key, [&] {
      store_->set(std::string(kKeyPrefix) + "/" + key,
                  std::vector<std::uint8_t>(value.begin(), value.end()));
      return 0;
    });
  }

  std::string fetch(const std::string& key) override {
    const auto bytes = guarded("waiting for " + key + " in the rendezvous store",
                               [&] { return store_->get(std::string(kKeyPrefix) + "/" + key); });
    return {bytes.begin(), bytes.end()};
  }

  void abort() noexcept override { aborted_ = true; }

  /// Turns a failure of `what` into the error the loop reports: this rank's
  /// view, plus the ranks that did not report a failure of their own within
  /// kReportWindow (those are the ones that died or hang).
  [[noreturn]] void fail(const std::string& what, const std::string& cause) {
    aborted_ = true;
    std::string message = what + " failed on rank " + std::to_string(rank_) + ": " + cause;
    message += peersThatDidNotReport();
    throw CollectiveError(message);
  }

 private:
  void checkUsable(const std::string& what) const {
    if (aborted_) throw CollectiveError(what + ": the group was aborted after an earlier failure");
  }

  template <typename Call>
  auto guarded(const std::string& what, Call&& call) -> decltype(call()) {
    try {
      return call();
    } catch (const CollectiveError&) {
      throw;
    } catch (const std::exception& error) {
      fail(what, messageOf(error));
    }
  }

  std::string peersThatDidNotReport() {
    try {
      store_->setTimeout(kReportWindow);
      const std::string own = std::string(kKeyPrefix) + "/failed/" + std::to_string(rank_);
      store_->set(own, std::vector<std::uint8_t>{1});
      std::vector<int> silent;
      const auto until = Clock::now() + kReportWindow;
      do {
        silent.clear();
        for (int peer = 0; peer < world_; ++peer) {
          const std::string key = std::string(kKeyPrefix) + "/failed/" + std::to_string(peer);
          if (peer != rank_ && !store_->check({key})) silent.push_back(peer);
        }
        if (silent.empty()) return "";
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      } while (Clock::now() < until);
      std::string ranks;
      for (const int peer : silent) ranks += (ranks.empty() ? "" : ", ") + std::to_string(peer);
      return std::string("; ") + (silent.size() == 1 ? "rank " : "ranks ") + ranks +
             " did not report a failure of its own within " +
             std::to_string(kReportWindow.count() / 1000) + " s (dead, stopped or unreachable)";
    } catch (const std::exception& error) {
      return "; the rendezvous store at " + address_ +
             " is unreachable too (its host, the launcher or rank 0, may be gone): " +
             messageOf(error);
    }
  }

  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
  int rank_ = 0;
  int world_ = 1;
  std::chrono::milliseconds timeout_;
  std::string address_;
  bool aborted_ = false;
};

void GlooPending::wait() {
  // Gloo's own recv timeout usually ends a wait on a silent peer, but not
  // every state of the group arms it (a peer stopped between collectives):
  // Work::wait's deadline is the same one, so either way the wait ends then,
  // and the message says that the deadline passed, whichever words Gloo used.
  const auto start = Clock::now();
  try {
    work_->wait(owner_->timeout());
  } catch (const std::exception& error) {
    const bool late = Clock::now() - start >= owner_->timeout() - std::chrono::milliseconds(200);
    owner_->fail(what_, (late ? "no answer within " +
                                    std::to_string(owner_->timeout().count() / 1000) + " s: "
                              : std::string()) +
                            messageOf(error));
  }
}

c10d::TCPStoreOptions storeOptions(std::uint16_t port, bool isServer,
                                   std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = port;
  options.isServer = isServer;
  options.numWorkers = {};  // c10::nullopt in 1.13, std::nullopt in 2.x
  options.waitWorkers = false;
  options.timeout = timeout;
  return options;
}

}  // namespace

Expected<std::unique_ptr<Communicator>> joinGlooGroup(const GroupSettings& settings) {
  const LaunchEnv& launch = settings.launch;
  const std::string address = storeAddress(launch);
  c10::intrusive_ptr<c10d::Store> store;
  try {
    if (launch.useAgentStore) {
      auto client = c10::make_intrusive<c10d::TCPStore>(
          launch.masterAddr, storeOptions(launch.masterPort, false, settings.timeout));
      store = c10::make_intrusive<c10d::PrefixStore>(launch.agentStorePrefix(), client);
    } else {
      auto options = storeOptions(launch.masterPort, launch.rank == 0, settings.timeout);
      options.multiTenant = true;
      store = c10::make_intrusive<c10d::TCPStore>(launch.masterAddr, options);
    }
  } catch (const std::exception& error) {
    return makeError(ErrorKind::Runtime, "rank " + std::to_string(launch.rank) +
                                             ": cannot reach the rendezvous store at " + address +
                                             " within " +
                                             std::to_string(settings.timeout.count() / 1000) +
                                             " s: " + messageOf(error));
  }
  try {
    auto options = c10d::ProcessGroupGloo::Options::create(settings.timeout);
    for (const std::string& name : settings.interfaces) {
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
    }
    if (options->devices.empty()) {
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    // c10d's Python binding runs two threads per device; so do we.
    options->threads = static_cast<int>(options->devices.size()) * 2;
    auto group =
        c10::make_intrusive<c10d::ProcessGroupGloo>(store, launch.rank, launch.worldSize, options);
    return std::unique_ptr<Communicator>(
        std::make_unique<GlooCommunicator>(std::move(store), std::move(group), settings));
  } catch (const std::exception& error) {
    return makeError(ErrorKind::Runtime, "rank " + std::to_string(launch.rank) +
                                             ": cannot join the Gloo group of " +
                                             std::to_string(launch.worldSize) + " through " +
                                             address + ": " + messageOf(error));
  }
}

struct RendezvousStore::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
};

RendezvousStore::RendezvousStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RendezvousStore::RendezvousStore(RendezvousStore&&) noexcept = default;
RendezvousStore& RendezvousStore::operator=(RendezvousStore&&) noexcept = default;
RendezvousStore::~RendezvousStore() = default;

Expected<RendezvousStore> RendezvousStore::host(std::uint16_t port,
                                                std::chrono::milliseconds timeout) {
  try {
    auto impl = std::make_unique<Impl>();
    impl->store = c10::make_intrusive<c10d::TCPStore>("0.0.0.0", storeOptions(port, true, timeout));
    return RendezvousStore(std::move(impl));
  } catch (const std::exception& error) {
    return makeError(ErrorKind::Runtime, "cannot host the rendezvous store on port " +
                                             std::to_string(port) + ": " + messageOf(error));
  }
}

std::uint16_t RendezvousStore::port() const { return impl_->store->getPort(); }

}  // namespace tb::engine
