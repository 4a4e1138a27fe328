// A GPU queues work asynchronously, so each timing ends with a host copy of
// one element (a synchronisation available without CUDA headers).
#include "matmul_probe.hpp"

#include <ATen/ATen.h>

#include <chrono>
#include <vector>

namespace tb::engine {
namespace {

double bestGflops(c10::Device device, at::ScalarType type, std::int64_t size, int repeats) {
  const auto options = at::TensorOptions().dtype(type).device(device);
  const at::Tensor a = at::randn({size, size}, options);
  const at::Tensor b = at::randn({size, size}, options);
  at::Tensor c = at::matmul(a, b);  // warm-up: library initialisation, page faults
  (void)c.flatten()[0].item<double>();
  double best = 0.0;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    at::matmul_out(c, a, b);
    (void)c.flatten()[0].item<double>();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const double flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) *
                         static_cast<double>(size);
    if (elapsed.count() > 0.0) best = std::max(best, flops / elapsed.count() / 1e9);
  }
  return best;
}

}  // namespace

MatmulRate probeMatmulRate(c10::Device device, std::int64_t size, int repeats) {
  std::vector<at::ScalarType> types{at::kFloat};
  if (device.is_cuda()) types.insert(types.begin(), at::kBFloat16);
  MatmulRate rate;
  for (const auto type : types) {
    const double gflops = bestGflops(device, type, size, repeats);
    if (gflops > rate.gflops) {
      rate.gflops = gflops;
      rate.path = std::string(type == at::kBFloat16 ? "bf16 " : "float32 ") +
                  std::to_string(size) + "x" + std::to_string(size);
    }
  }
  return rate;
}

}  // namespace tb::engine
