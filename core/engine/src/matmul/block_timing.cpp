#include "matmul/block_timing.hpp"

#include <chrono>

namespace tb::engine {
namespace {

ModelConfig oneLayer(ModelConfig model) {
  model.layers = 1;
  return model;
}

}  // namespace

BlockTiming::BlockTiming(const ModelConfig& model, c10::Device device)
    : model_(oneLayer(model)), weights_(initialiseWeights(model_, 0, device)) {
  const auto options = at::TensorOptions().dtype(at::kFloat).device(device);
  input_ = at::randn({model_.batch, model_.seq, model_.dim}, options).requires_grad_(true);
  gradient_ = at::randn({model_.batch, model_.seq, model_.dim}, options);
}

double BlockTiming::seconds(const DecoderOps& ops) const {
  const Decoder decoder(model_, weights_, ops, at::kFloat);
  for (const NamedTensor& parameter : namedParameters(weights_)) {
    parameter.tensor.mutable_grad().reset();
  }
  input_.mutable_grad().reset();
  const auto start = std::chrono::steady_clock::now();
  decoder.block(0, input_).backward(gradient_);
  (void)input_.grad().flatten()[0].item<float>();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return elapsed.count();
}

}  // namespace tb::engine
