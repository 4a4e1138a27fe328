// Memory accounting for CPU tensors. LibTorch asks one process-wide allocator
// for every CPU tensor's storage; installing this one in its place gives exact
// live and peak bytes and lets a run refuse allocations past a budget, the way
// a GPU runs out of memory, so out-of-memory handling is testable on a laptop.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>

#include "runtime/torch_compat.hpp"

namespace tb::engine {

/// Thrown by the tracking allocator when an allocation would pass the budget.
class MemoryBudgetExceeded : public std::runtime_error {
 public:
  MemoryBudgetExceeded(std::uint64_t requested, std::uint64_t live, std::uint64_t budget);

  std::uint64_t requested;
  std::uint64_t live;
  std::uint64_t budget;
};

/// A c10::Allocator that counts bytes. Each block keeps its size in a 64-byte
/// header before the data, so the DataPtr's context is the data pointer itself,
/// which raw_allocate (used by oneDNN) requires.
class TrackingCpuAllocator final : public c10::Allocator {
 public:
  /// Installs the process-wide instance as LibTorch's CPU allocator (once).
  static TrackingCpuAllocator& install();

  c10::DataPtr allocate(std::size_t bytes) TB_ALLOCATE_CONST override;
  c10::DeleterFnPtr raw_deleter() const override;
#if TB_TORCH_ALLOCATOR_V2
  void copy_data(void* dest, const void* src, std::size_t count) const override;
#endif

  [[nodiscard]] std::uint64_t liveBytes() const { return live_.load(); }
  [[nodiscard]] std::uint64_t peakBytes() const { return peak_.load(); }
  /// Starts a new peak from the bytes live now.
  void resetPeak() { peak_.store(live_.load()); }
  /// Allocations that would take live bytes past `bytes` throw; 0 removes the budget.
  void setBudget(std::uint64_t bytes) { budget_.store(bytes); }
  [[nodiscard]] std::uint64_t budget() const { return budget_.load(); }
  /// Number of refused allocations so far (to recognise a refusal that a
  /// library rethrew as a different exception type).
  [[nodiscard]] std::uint64_t refusals() const { return refusals_.load(); }
  /// The most recent refusal, rebuilt as the exception it threw.
  [[nodiscard]] MemoryBudgetExceeded lastRefusal() const;

 private:
  TrackingCpuAllocator() = default;
  static TrackingCpuAllocator& instance();
  static void release(void* data);

  // mutable: allocate() is const in LibTorch before 2.3.
  mutable std::atomic<std::uint64_t> live_{0};
  mutable std::atomic<std::uint64_t> peak_{0};
  mutable std::atomic<std::uint64_t> refusals_{0};
  mutable std::atomic<std::uint64_t> lastRequested_{0};
  mutable std::atomic<std::uint64_t> lastLive_{0};
  std::atomic<std::uint64_t> budget_{0};
};

}  // namespace tb::engine
