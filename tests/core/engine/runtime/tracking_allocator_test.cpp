// The tracking allocator is installed process-wide, so these tests measure
// differences around tensors they create rather than absolute numbers.
#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>
#include <gtest/gtest.h>

#include "runtime/tracking_allocator.hpp"

namespace {

using tb::engine::MemoryBudgetExceeded;
using tb::engine::TrackingCpuAllocator;

TEST(TrackingAllocator, CountsTheExactBytesOfLiveTensors) {
  auto& allocator = TrackingCpuAllocator::install();
  const std::uint64_t before = allocator.liveBytes();
  {
    const at::Tensor a = at::empty({1000}, at::kFloat);
    EXPECT_EQ(allocator.liveBytes(), before + 4000);
    const at::Tensor b = at::empty({10, 10}, at::kDouble);
    EXPECT_EQ(allocator.liveBytes(), before + 4800);
  }
  EXPECT_EQ(allocator.liveBytes(), before);
}

TEST(TrackingAllocator, PeakRemembersTheHighestPointUntilReset) {
  auto& allocator = TrackingCpuAllocator::install();
  allocator.resetPeak();
  const std::uint64_t base = allocator.liveBytes();
  { const at::Tensor big = at::empty({1 << 20}, at::kByte); }
  { const at::Tensor small = at::empty({1024}, at::kByte); }
  EXPECT_EQ(allocator.peakBytes(), base + (1 << 20));
  allocator.resetPeak();
  EXPECT_EQ(allocator.peakBytes(), allocator.liveBytes());
}

TEST(TrackingAllocator, RefusesAnAllocationPastTheBudgetAndNamesTheNumbers) {
  auto& allocator = TrackingCpuAllocator::install();
  const std::uint64_t live = allocator.liveBytes();
  allocator.setBudget(live + 10'000);
  const std::uint64_t refusalsBefore = allocator.refusals();
  try {
    const at::Tensor fits = at::empty({2000}, at::kFloat);  // 8000 bytes
    (void)at::empty({1000}, at::kFloat);                    // 4000 more: refused
    allocator.setBudget(0);
    FAIL() << "the allocation past the budget was not refused";
  } catch (const MemoryBudgetExceeded& refusal) {
    allocator.setBudget(0);
    EXPECT_EQ(refusal.requested, 4000U);
    EXPECT_EQ(refusal.budget, live + 10'000);
    const std::string message = refusal.what();
    EXPECT_NE(message.find("4000 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(live + 10'000)), std::string::npos) << message;
  }
  EXPECT_EQ(allocator.refusals(), refusalsBefore + 1);
  EXPECT_EQ(allocator.liveBytes(), live);  // the refused block was never counted
  const at::Tensor afterwards = at::empty({4000}, at::kFloat);
  EXPECT_EQ(allocator.liveBytes(), live + 16'000);
}

TEST(TrackingAllocator, RawAllocationsKeepTheDataPointerAsContext) {
  // oneDNN allocates through raw_allocate, which asserts context == data.
  auto& allocator = TrackingCpuAllocator::install();
  const std::uint64_t before = allocator.liveBytes();
  void* block = allocator.raw_allocate(333);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % 64, 0U);
  EXPECT_EQ(allocator.liveBytes(), before + 333);
  allocator.raw_deallocate(block);
  EXPECT_EQ(allocator.liveBytes(), before);
}

TEST(TrackingAllocator, IsTheAllocatorLibTorchUsesForCpuTensors) {
  auto& allocator = TrackingCpuAllocator::install();
  EXPECT_EQ(c10::GetCPUAllocator(), &allocator);
  const std::uint64_t before = allocator.liveBytes();
  const at::Tensor a = at::ones({64, 64});
  const at::Tensor b = at::ones({64, 64});
  const at::Tensor product = at::matmul(a, b);
  EXPECT_GE(allocator.liveBytes(), before + 3 * 64 * 64 * 4);
  EXPECT_EQ(product[3][5].item<float>(), 64.0F);
}

}  // namespace
