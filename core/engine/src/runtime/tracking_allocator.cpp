// Blocks are 64-byte aligned (what LibTorch's own CPU allocator guarantees
// and vectorised kernels assume); the header is 64 bytes so the data stays
// aligned. Counters are atomics because intra-op threads allocate too.
#include "runtime/tracking_allocator.hpp"

#include <c10/core/CPUAllocator.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

namespace tb::engine {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHeader = 64;

std::byte* headerOf(void* data) { return static_cast<std::byte*>(data) - kHeader; }

std::string describe(std::uint64_t requested, std::uint64_t live, std::uint64_t budget) {
  return "out of memory: an allocation of " + std::to_string(requested) +
         " bytes would pass the memory budget of " + std::to_string(budget) + " bytes (" +
         std::to_string(live) + " bytes in use)";
}

}  // namespace

MemoryBudgetExceeded::MemoryBudgetExceeded(std::uint64_t requestedBytes, std::uint64_t liveBytes,
                                           std::uint64_t budgetBytes)
    : std::runtime_error(describe(requestedBytes, liveBytes, budgetBytes)),
      requested(requestedBytes),
      live(liveBytes),
      budget(budgetBytes) {}

TrackingCpuAllocator& TrackingCpuAllocator::instance() {
  // Never destroyed: tensors freed during exit still call release().
  static TrackingCpuAllocator* const allocator = new TrackingCpuAllocator();
  return *allocator;
}

TrackingCpuAllocator& TrackingCpuAllocator::install() {
  static std::once_flag installed;
  std::call_once(installed, [] { c10::SetCPUAllocator(&instance(), /*priority=*/1); });
  return instance();
}

c10::DataPtr TrackingCpuAllocator::allocate(std::size_t bytes) TB_ALLOCATE_CONST {
  const c10::Device cpu(c10::DeviceType::CPU);
  if (bytes == 0) return {nullptr, nullptr, &release, cpu};
  const std::uint64_t budgetBytes = budget_.load();
  const std::uint64_t liveBefore = live_.load();
  if (budgetBytes != 0 && liveBefore + bytes > budgetBytes) {
    lastRequested_.store(bytes);
    lastLive_.store(liveBefore);
    refusals_.fetch_add(1);
    throw MemoryBudgetExceeded(bytes, liveBefore, budgetBytes);
  }
  const std::size_t total = (kHeader + bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* block = std::aligned_alloc(kAlignment, total);
  if (block == nullptr) throw std::bad_alloc();
  std::memcpy(block, &bytes, sizeof(bytes));
  void* data = static_cast<std::byte*>(block) + kHeader;

  const std::uint64_t liveNow = live_.fetch_add(bytes) + bytes;
  std::uint64_t peak = peak_.load();
  while (liveNow > peak && !peak_.compare_exchange_weak(peak, liveNow)) {
  }
  return {data, data, &release, cpu};
}

void TrackingCpuAllocator::release(void* data) {
  if (data == nullptr) return;
  std::byte* block = headerOf(data);
  std::size_t bytes = 0;
  std::memcpy(&bytes, block, sizeof(bytes));
  instance().live_.fetch_sub(bytes);
  std::free(block);
}

MemoryBudgetExceeded TrackingCpuAllocator::lastRefusal() const {
  return {lastRequested_.load(), lastLive_.load(), budget_.load()};
}

c10::DeleterFnPtr TrackingCpuAllocator::raw_deleter() const { return &release; }

#if TB_TORCH_ALLOCATOR_V2
void TrackingCpuAllocator::copy_data(void* dest, const void* src, std::size_t count) const {
  default_copy_data(dest, src, count);
}
#endif

}  // namespace tb::engine
