// The input checks of the fused kernels, out of line so each kernel file
// stays about its arithmetic.
#include "fused/cpu_kernels.hpp"

#include <sstream>
#include <stdexcept>

namespace tb::engine::fused::cpu {

void requireFloatCpu(const at::Tensor& t, std::string_view what) {
  if (t.defined() && t.scalar_type() == at::kFloat && t.device().is_cpu()) return;
  std::ostringstream message;
  message << "fused CPU kernel: " << what << " must be a float32 CPU tensor, got ";
  if (t.defined()) {
    message << t.scalar_type() << " on " << t.device();
  } else {
    message << "an undefined tensor";
  }
  throw std::invalid_argument(message.str());
}

}  // namespace tb::engine::fused::cpu
