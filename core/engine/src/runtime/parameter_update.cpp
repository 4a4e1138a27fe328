// The stock runtime's update is adamw.hpp unchanged; this only adapts it to
// the loop's interface.
#include "runtime/parameter_update.hpp"

#include <utility>

namespace tb::engine {
namespace {

class PerTensorUpdate final : public ParameterUpdate {
 public:
  PerTensorUpdate(std::vector<NamedTensor> parameters, AdamWOptions options)
      : parameters_(std::move(parameters)), optimizer_(parameters_, options) {}

  const std::vector<NamedTensor>& parameters() const override { return parameters_; }
  at::Tensor clipAndStep(double maxNorm) override {
    at::Tensor norm = clipGradients(parameters_, maxNorm);
    optimizer_.step();
    return norm;
  }
  void zeroGrad() override { optimizer_.zeroGrad(); }
  std::vector<NamedTensor> state() const override { return optimizer_.state(); }
  void restore(const std::vector<NamedTensor>& state, std::int64_t stepCount) override {
    optimizer_.restore(state, stepCount);
  }
  const AdamWOptions& options() const override { return optimizer_.options(); }

 private:
  std::vector<NamedTensor> parameters_;
  AdamW optimizer_;
};

}  // namespace

std::unique_ptr<ParameterUpdate> perTensorUpdate(std::vector<NamedTensor> parameters,
                                                 AdamWOptions options) {
  return std::make_unique<PerTensorUpdate>(std::move(parameters), options);
}

}  // namespace tb::engine
