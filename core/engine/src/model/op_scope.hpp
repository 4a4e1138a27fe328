// Names one of the engine's own operators for profilers (RecordFunction
// observers such as tests/perf/engine_step_profile, or PyTorch's profiler).
// Autograd records a custom function's backward node by its class name, but
// its forward runs unrecorded, so without this a fused operator's forward
// time would be booked to whatever op called it. Free when nothing observes.
#pragma once

#include <ATen/record_function.h>

namespace tb::engine {

class OpScope {
 public:
  explicit OpScope(const char* name) : guard_(at::RecordScope::USER_SCOPE) {
    if (guard_.isActive()) guard_.before(name);
  }

 private:
  at::RecordFunction guard_;
};

}  // namespace tb::engine
