// NCCL as the distributed-facts reference describes PyTorch's own use of it,
// rebuilt on the public API: the unique id through the rendezvous store
// ("broadcast to all participating processes using any CPU communication
// system", NCCL's docs); a non-blocking communicator (config.blocking = 0),
// so that no call can hang the process; collectives on a stream of their own
// that waits for the compute stream (LibTorch's default, the legacy stream)
// through an event and is waited for the same way, so backward goes on while
// buckets travel; and a watchdog thread that polls ncclCommGetAsyncError and
// aborts the communicator (ncclCommAbort, not Destroy, which "could block
// forever") on the first error, after which every wait throws.
//
// Host tensors (the stop vote, the peaks) and the store go through the Gloo
// communicator this one is built on, so the training loop needs no branch.
#include "distributed/nccl_communicator.hpp"

#if TB_HAVE_NCCL
#include "distributed/nccl_library.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <utility>
#endif

namespace tb::engine {

#if TB_HAVE_NCCL
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kPoll{1};
constexpr std::chrono::milliseconds kWatchdogPeriod{100};

// Every call goes through the libraries opened at run time; joinNcclGroup
// checks they are there before anything below runs.
const NcclLibrary& api() { return *ncclLibrary(); }

std::string cudaText(cudaError_t error) {
  return std::string(api().cudaGetErrorName(error)) + " (" + api().cudaGetErrorString(error) + ")";
}

ncclDataType_t ncclTypeOf(const at::Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case at::kFloat: return ncclFloat32;
    case at::kBFloat16: return ncclBfloat16;
    case at::kHalf: return ncclFloat16;
    case at::kLong: return ncclInt64;
    case at::kDouble: return ncclFloat64;
    default:
      throw CollectiveError(std::string("NCCL: no NCCL type for ") +
                            c10::toString(tensor.scalar_type()));
  }
}

class NcclCommunicator;

class NcclPending final : public PendingCollective {
 public:
  NcclPending(NcclCommunicator& owner, cudaEvent_t done, std::string what)
      : owner_(&owner), done_(done), what_(std::move(what)) {}
  ~NcclPending() override { api().cudaEventDestroy(done_); }
  NcclPending(const NcclPending&) = delete;
  NcclPending& operator=(const NcclPending&) = delete;
  void wait() override;

 private:
  NcclCommunicator* owner_;
  cudaEvent_t done_;
  std::string what_;
};

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(std::unique_ptr<Communicator> host, ncclComm_t comm, cudaStream_t stream)
      : host_(std::move(host)), comm_(comm), stream_(stream) {
    watchdog_ = std::thread([this] { watch(); });
  }

  ~NcclCommunicator() override {
    stopping_ = true;
    if (watchdog_.joinable()) watchdog_.join();
    // Abort rather than destroy: a destroy with a peer gone can block forever.
    if (!aborted_.exchange(true)) api().ncclCommAbort(comm_);
    api().cudaStreamDestroy(stream_);
  }

  int rank() const override { return host_->rank(); }
  int worldSize() const override { return host_->worldSize(); }
  std::chrono::milliseconds timeout() const override { return host_->timeout(); }

  std::unique_ptr<PendingCollective> allReduceSum(at::Tensor slice, std::string what) override {
    if (!slice.is_cuda()) return host_->allReduceSum(std::move(slice), std::move(what));
    cudaEvent_t done = launch(what, [&] {
      return api().ncclAllReduce(slice.data_ptr(), slice.data_ptr(),
                                 static_cast<size_t>(slice.numel()), ncclTypeOf(slice), ncclSum,
                                 comm_, stream_);
    });
    return std::make_unique<NcclPending>(*this, done, std::move(what));
  }

  void broadcast(at::Tensor buffer, int root, const std::string& what) override {
    if (!buffer.is_cuda()) {
      host_->broadcast(std::move(buffer), root, what);
      return;
    }
    cudaEvent_t done = launch(what, [&] {
      return api().ncclBroadcast(buffer.data_ptr(), buffer.data_ptr(),
                                 static_cast<size_t>(buffer.numel()), ncclTypeOf(buffer), root,
                                 comm_, stream_);
    });
    NcclPending(*this, done, what).wait();
  }

  void allGather(at::Tensor buffer, const std::string& what) override {
    if (!buffer.is_cuda()) {
      host_->allGather(std::move(buffer), what);
      return;
    }
    // In place: NCCL reads this rank's shard from where the result goes.
    const auto shard = static_cast<size_t>(buffer.numel() / worldSize());
    auto* bytes = static_cast<char*>(buffer.data_ptr());
    const std::int64_t ownOffset = buffer.numel() / worldSize() * rank() * buffer.element_size();
    const char* own = bytes + ownOffset;
    cudaEvent_t done = launch(what, [&] {
      return api().ncclAllGather(own, bytes, shard, ncclTypeOf(buffer), comm_, stream_);
    });
    NcclPending(*this, done, what).wait();
  }

  void barrier(const std::string& what) override { host_->barrier(what); }
  void publish(const std::string& key, const std::string& value) override {
    host_->publish(key, value);
  }
  std::string fetch(const std::string& key) override { return host_->fetch(key); }

  void abort() noexcept override {
    if (!aborted_.exchange(true)) api().ncclCommAbort(comm_);
    host_->abort();
  }

  /// Waits for `done` (recorded after a collective) up to the deadline,
  /// checking the communicator as it goes; then the compute stream waits
  /// for it too, so that what reads the result runs after it.
  void waitFor(cudaEvent_t done, const std::string& what) {
    const auto deadline = Clock::now() + timeout();
    for (;;) {
      failIfBroken(what);
      const cudaError_t state = api().cudaEventQuery(done);
      if (state == cudaSuccess) break;
      if (state != cudaErrorNotReady) fail(what, "CUDA: " + cudaText(state));
      if (Clock::now() > deadline) {
        fail(what, "did not complete within " + std::to_string(timeout().count() / 1000) +
                       " s (a peer is gone or hangs)");
      }
      std::this_thread::sleep_for(kPoll);
    }
    api().cudaStreamWaitEvent(cudaStreamLegacy, done, 0);
  }

 private:
  /// Orders the collective after the compute stream's work so far, runs it
  /// on the communication stream and returns the event that marks its end.
  template <typename Call>
  cudaEvent_t launch(const std::string& what, Call&& call) {
    failIfBroken(what);
    cudaEvent_t ready = nullptr;
    cudaEvent_t done = nullptr;
    if (api().cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) != cudaSuccess ||
        api().cudaEventCreateWithFlags(&done, cudaEventDisableTiming) != cudaSuccess) {
      fail(what, "cannot create CUDA events");
    }
    api().cudaEventRecord(ready, cudaStreamLegacy);
    api().cudaStreamWaitEvent(stream_, ready, 0);
    api().cudaEventDestroy(ready);
    const ncclResult_t started = call();
    // Non-blocking: ncclInProgress means enqueued, its outcome comes later.
    if (started != ncclSuccess && started != ncclInProgress) {
      api().cudaEventDestroy(done);
      fail(what, std::string("NCCL: ") + api().ncclGetErrorString(started) + ": " +
                     api().ncclGetLastError(comm_));
    }
    api().cudaEventRecord(done, stream_);
    return done;
  }

  void failIfBroken(const std::string& what) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!asyncError_.empty()) fail(what, asyncError_);
    }
    if (aborted_) fail(what, "the NCCL communicator was aborted after an earlier failure");
  }

  [[noreturn]] void fail(const std::string& what, const std::string& cause) {
    abort();
    throw CollectiveError(what + " failed on rank " + std::to_string(rank()) + ": " + cause);
  }

  void watch() {
    while (!stopping_ && !aborted_) {
      ncclResult_t state = ncclSuccess;
      if (api().ncclCommGetAsyncError(comm_, &state) == ncclSuccess && state != ncclSuccess &&
          state != ncclInProgress) {
        {
          const std::lock_guard<std::mutex> lock(mutex_);
          asyncError_ = std::string("NCCL: ") + api().ncclGetErrorString(state) + ": " +
                        api().ncclGetLastError(comm_);
        }
        if (!aborted_.exchange(true)) api().ncclCommAbort(comm_);
        return;
      }
      std::this_thread::sleep_for(kWatchdogPeriod);
    }
  }

  std::unique_ptr<Communicator> host_;
  ncclComm_t comm_;
  cudaStream_t stream_;
  std::atomic<bool> aborted_{false};
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::string asyncError_;
  std::thread watchdog_;
};

void NcclPending::wait() { owner_->waitFor(done_, what_); }

Error cannotJoin(const GroupSettings& settings, const std::string& why) {
  return makeError(ErrorKind::Runtime,
                   "rank " + std::to_string(settings.launch.rank) + ": NCCL: " + why);
}

}  // namespace

bool ncclBuilt() { return true; }

std::string ncclVersion() {
  std::string why;
  if (ncclLibrary(&why) == nullptr) return why;
  int code = 0;
  if (api().ncclGetVersion(&code) != ncclSuccess) return "unknown";
  // NCCL_VERSION_CODE's encoding: major*10000 + minor*100 + patch since 2.9.
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
         std::to_string(code % 100);
}

Expected<std::unique_ptr<Communicator>> joinNcclGroup(const GroupSettings& settings) {
  if (std::string why; ncclLibrary(&why) == nullptr) return cannotJoin(settings, why);
  int devices = 0;
  if (const cudaError_t error = api().cudaGetDeviceCount(&devices); error != cudaSuccess) {
    return cannotJoin(settings, "no CUDA device for local rank " +
                                    std::to_string(settings.launch.localRank) +
                                    ": cudaGetDeviceCount: " + cudaText(error));
  }
  if (settings.launch.localRank >= devices) {
    return cannotJoin(settings, "local rank " + std::to_string(settings.launch.localRank) +
                                    " has no GPU of its own (" + std::to_string(devices) +
                                    " visible): one GPU per worker");
  }
  if (const cudaError_t error = api().cudaSetDevice(settings.launch.localRank);
      error != cudaSuccess) {
    return cannotJoin(settings, "cudaSetDevice: " + cudaText(error));
  }
  auto host = joinGlooGroup(settings);
  if (!host) return host.error();

  ncclUniqueId id{};
  constexpr const char* kIdKey = "nccl_unique_id";
  try {
    if (settings.launch.rank == 0) {
      if (const ncclResult_t made = api().ncclGetUniqueId(&id); made != ncclSuccess) {
        return cannotJoin(settings,
                          std::string("ncclGetUniqueId: ") + api().ncclGetErrorString(made));
      }
      (*host)->publish(kIdKey, std::string(id.internal, sizeof(id.internal)));
    } else {
      const std::string bytes = (*host)->fetch(kIdKey);
      if (bytes.size() != sizeof(id.internal)) {
        return cannotJoin(settings, "the unique id in the store has " +
                                        std::to_string(bytes.size()) + " bytes, not " +
                                        std::to_string(sizeof(id.internal)));
      }
      std::copy(bytes.begin(), bytes.end(), id.internal);
    }
  } catch (const CollectiveError& error) {
    return makeError(ErrorKind::Runtime, error.what());
  }

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  ncclResult_t state = api().ncclCommInitRankConfig(&comm, settings.launch.worldSize, id,
                                                    settings.launch.rank, &config);
  const auto deadline = Clock::now() + settings.timeout;
  while (state == ncclInProgress && Clock::now() < deadline) {
    std::this_thread::sleep_for(kPoll);
    if (api().ncclCommGetAsyncError(comm, &state) != ncclSuccess) break;
  }
  if (state != ncclSuccess) {
    const std::string why = state == ncclInProgress
                                ? "the communicator did not form within " +
                                      std::to_string(settings.timeout.count() / 1000) + " s"
                                : std::string(api().ncclGetErrorString(state));
    if (comm != nullptr) api().ncclCommAbort(comm);
    return cannotJoin(settings, "ncclCommInitRankConfig: " + why);
  }
  cudaStream_t stream = nullptr;
  if (const cudaError_t error = api().cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      error != cudaSuccess) {
    api().ncclCommAbort(comm);
    return cannotJoin(settings, "cudaStreamCreate: " + cudaText(error));
  }
  return std::unique_ptr<Communicator>(
      std::make_unique<NcclCommunicator>(std::move(*host), comm, stream));
}

#else

bool ncclBuilt() { return false; }

std::string ncclVersion() { return {}; }

Expected<std::unique_ptr<Communicator>> joinNcclGroup(const GroupSettings& settings) {
  return makeError(ErrorKind::Runtime,
                   "rank " + std::to_string(settings.launch.rank) +
                       ": data parallelism on --device cuda needs NCCL, and this build has "
                       "none (configure with TB_WITH_NCCL=ON where the CUDA toolkit is)");
}

#endif

}  // namespace tb::engine
