// The one shape of cancellation and progress in core: long work takes a
// StopToken it polls and, where it can say how far it got, a ProgressFn.
// The CLI's signal guard, the benchmark's children and the GUI's Cancel
// buttons all end up as a StopToken, so no function invents its own flag.
//
// Not std::stop_token: a signal handler may only store to a lock-free atomic,
// and std::stop_source::request_stop may take a lock. A token here is a
// pointer to such an atomic (shared, or one that lives as long as the
// program, like the signal guard's).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace tb {

/// A read-only view of a stop request; a default token never stops.
class StopToken {
 public:
  StopToken() = default;

  /// A token over a flag that outlives every copy of the token (a static).
  [[nodiscard]] static StopToken watching(const std::atomic<bool>& flag) {
    StopToken token;
    token.external_ = &flag;
    return token;
  }

  [[nodiscard]] bool stopRequested() const noexcept {
    if (shared_ && shared_->load(std::memory_order_relaxed)) return true;
    return external_ != nullptr && external_->load(std::memory_order_relaxed);
  }

  /// False for a default token: nothing can ever ask it to stop.
  [[nodiscard]] bool stopPossible() const noexcept { return shared_ || external_ != nullptr; }

 private:
  friend class StopSource;
  std::shared_ptr<const std::atomic<bool>> shared_;
  const std::atomic<bool>* external_ = nullptr;
};

/// Owns a stop request; its tokens stay valid after the source is gone.
class StopSource {
 public:
  StopSource() : flag_(std::make_shared<std::atomic<bool>>(false)) {}

  /// const: copies of a source share one request, as tokens do.
  void requestStop() const noexcept { flag_->store(true, std::memory_order_relaxed); }
  [[nodiscard]] bool stopRequested() const noexcept {
    return flag_->load(std::memory_order_relaxed);
  }
  [[nodiscard]] StopToken token() const {
    StopToken token;
    token.shared_ = flag_;
    return token;
  }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

/// How far long work has got: `done` of `total` units (total 0: unknown).
struct Progress {
  std::int64_t done = 0;
  std::int64_t total = 0;
  std::string_view what;  ///< what is being worked on now, for people; may be empty
};

/// Called from the working thread; it must be cheap and must not block.
using ProgressFn = std::function<void(const Progress&)>;

}  // namespace tb
