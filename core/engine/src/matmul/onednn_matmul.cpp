// Every product here is C[m, n] = A[m, k] · B[k, n] on oneDNN's matmul
// primitive with A and B described by their strides, so x·Wᵀ, dY·W and dYᵀ·X
// all read the tensors' own float32 memory. Primitives are created once per
// shape and layout and kept in a mutex-guarded map (creating one costs far
// more than a small product); executing one is thread-safe in oneDNN.
//
// Threads: Debian's libdnnl and LibTorch both use the OpenMP runtime (libgomp),
// and oneDNN sizes each parallel region by omp_get_max_threads() of the calling
// thread. at::set_num_threads sets that on its own thread and LibTorch applies
// it to any other thread lazily, so each call first asks at::get_num_threads(),
// which performs that lazy set-up: oneDNN then runs on exactly the threads
// LibTorch would.
#include "matmul/onednn_matmul.hpp"
#include "model/op_scope.hpp"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <compare>
#include <map>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tb::engine {
namespace {

using dnnl::memory;

/// A 2-D float32 operand: its shape and element strides.
struct Operand {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t rowStride = 0;
  std::int64_t colStride = 0;

  [[nodiscard]] memory::desc desc() const {
    return memory::desc({rows, cols}, memory::data_type::f32, {rowStride, colStride});
  }
  friend auto operator<=>(const Operand&, const Operand&) = default;
};

Operand rowMajor(std::int64_t rows, std::int64_t cols) { return {rows, cols, cols, 1}; }
Operand transposed(const Operand& operand) {
  return {operand.cols, operand.rows, operand.colStride, operand.rowStride};
}
Operand matrixOf(const at::Tensor& tensor) {
  return {tensor.size(0), tensor.size(1), tensor.stride(0), tensor.stride(1)};
}

struct MatmulKey {
  Operand a;
  Operand b;
  bool bias = false;
  friend auto operator<=>(const MatmulKey&, const MatmulKey&) = default;
};

class PrimitiveCache {
 public:
  static PrimitiveCache& instance() {
    static PrimitiveCache cache;
    return cache;
  }

  [[nodiscard]] const dnnl::engine& engine() const { return engine_; }

  /// The primitive for C = A·B (+ bias), C row-major; a handle, cheap to copy.
  dnnl::matmul matmul(const MatmulKey& key) {
    const std::lock_guard lock(mutex_);
    auto found = matmuls_.find(key);
    if (found != matmuls_.end()) return found->second;
    const memory::desc dst = rowMajor(key.a.rows, key.b.cols).desc();
    const auto desc = key.bias ? dnnl::matmul::desc(key.a.desc(), key.b.desc(),
                                                    rowMajor(1, key.b.cols).desc(), dst)
                               : dnnl::matmul::desc(key.a.desc(), key.b.desc(), dst);
    dnnl::matmul primitive(dnnl::matmul::primitive_desc(desc, engine_));
    matmuls_.emplace(key, primitive);
    return primitive;
  }

  /// The primitive summing the rows of a row-major [rows, cols] matrix.
  dnnl::reduction columnSum(std::int64_t rows, std::int64_t cols) {
    const std::lock_guard lock(mutex_);
    const auto key = std::make_pair(rows, cols);
    auto found = sums_.find(key);
    if (found != sums_.end()) return found->second;
    const dnnl::reduction::desc desc(dnnl::algorithm::reduction_sum, rowMajor(rows, cols).desc(),
                                     rowMajor(1, cols).desc(), 0.0F, 0.0F);
    dnnl::reduction primitive(dnnl::reduction::primitive_desc(desc, engine_));
    sums_.emplace(key, primitive);
    return primitive;
  }

 private:
  PrimitiveCache() : engine_(dnnl::engine::kind::cpu, 0) {}

  std::mutex mutex_;
  dnnl::engine engine_;
  std::map<MatmulKey, dnnl::matmul> matmuls_;
  std::map<std::pair<std::int64_t, std::int64_t>, dnnl::reduction> sums_;
};

memory wrap(const Operand& operand, const at::Tensor& tensor) {
  return memory(operand.desc(), PrimitiveCache::instance().engine(), tensor.data_ptr());
}

dnnl::stream& threadStream() {
  thread_local dnnl::stream stream(PrimitiveCache::instance().engine());
  return stream;
}

/// A·B (+ bias) into a new row-major [a.rows, b.cols] tensor.
at::Tensor multiply(const Operand& a, const at::Tensor& aData, const Operand& b,
                    const at::Tensor& bData, const at::Tensor& bias) {
  (void)at::get_num_threads();  // applies LibTorch's thread count to this thread (see top)
  auto& cache = PrimitiveCache::instance();
  at::Tensor out = at::empty({a.rows, b.cols}, aData.options());
  const Operand c = rowMajor(a.rows, b.cols);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(a, aData)},
                                       {DNNL_ARG_WEIGHTS, wrap(b, bData)},
                                       {DNNL_ARG_DST, wrap(c, out)}};
  if (bias.defined()) args.emplace(DNNL_ARG_BIAS, wrap(rowMajor(1, b.cols), bias));
  cache.matmul({a, b, bias.defined()}).execute(threadStream(), args);
  threadStream().wait();
  return out;
}

/// Σ over the rows of a row-major [rows, cols] matrix: [cols].
at::Tensor sumRows(const at::Tensor& matrix) {
  (void)at::get_num_threads();
  const std::int64_t rows = matrix.size(0);
  const std::int64_t cols = matrix.size(1);
  at::Tensor out = at::empty({cols}, matrix.options());
  PrimitiveCache::instance()
      .columnSum(rows, cols)
      .execute(threadStream(), {{DNNL_ARG_SRC, wrap(rowMajor(rows, cols), matrix)},
                                {DNNL_ARG_DST, wrap(rowMajor(1, cols), out)}});
  threadStream().wait();
  return out;
}

at::IntArrayRef leadingSizes(const at::Tensor& x) {
  return x.sizes().slice(0, static_cast<std::size_t>(x.dim() - 1));
}

at::Tensor withLastSize(const at::Tensor& flat, const at::Tensor& like, std::int64_t last) {
  std::vector<std::int64_t> sizes = leadingSizes(like).vec();
  sizes.push_back(last);
  return flat.view(sizes);
}

/// y = x·Wᵀ (+ b) with x [..., k] row-major, W [n, k] row-major or transposed.
/// LibTorch 1.13's Function::apply rejects an undefined tensor argument, so
/// the bias-free product is its own function (OneDnnLinearNoBias below).
at::Tensor linearForward(torch::autograd::AutogradContext* context, const at::Tensor& x,
                         const at::Tensor& weight, const at::Tensor& bias) {
  context->save_for_backward({x, weight});
  const std::int64_t k = x.size(-1);
  const at::Tensor rows = x.reshape({-1, k});
  const at::Tensor y =
      multiply(rowMajor(rows.size(0), k), rows, transposed(matrixOf(weight)), weight, bias);
  return withLastSize(y, x, weight.size(0));
}

/// dX = dY·W, dW = dYᵀ·X and db = Σ dY on oneDNN, each only when asked for.
LinearGradients gradientsOf(const at::Tensor& gradient, const at::Tensor& x,
                            const at::Tensor& weight, bool needInput, bool needWeight,
                            bool needBias) {
  const std::int64_t n = weight.size(0);
  const std::int64_t k = weight.size(1);
  const at::Tensor dY = gradient.reshape({-1, n}).contiguous();
  const std::int64_t m = dY.size(0);
  LinearGradients grads;
  if (needInput) {
    grads.input =
        withLastSize(multiply(rowMajor(m, n), dY, matrixOf(weight), weight, at::Tensor()), x, k);
  }
  if (needWeight) {
    grads.weight = multiply(transposed(rowMajor(m, n)), dY, rowMajor(m, k), x, at::Tensor());
  }
  if (needBias) grads.bias = sumRows(dY);
  return grads;
}

torch::autograd::variable_list linearBackward(torch::autograd::AutogradContext* context,
                                              const at::Tensor& gradient, bool hasBias) {
  const auto saved = context->get_saved_variables();
  LinearGradients grads =
      gradientsOf(gradient, saved[0], saved[1], context->needs_input_grad(0),
                  context->needs_input_grad(1), hasBias && context->needs_input_grad(2));
  torch::autograd::variable_list out{std::move(grads.input), std::move(grads.weight)};
  if (hasBias) out.push_back(std::move(grads.bias));
  return out;
}

class OneDnnLinear : public torch::autograd::Function<OneDnnLinear> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* context, const at::Tensor& x,
                            const at::Tensor& weight, const at::Tensor& bias) {
    return linearForward(context, x, weight, bias);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* context,
                                                 torch::autograd::variable_list gradients) {
    return linearBackward(context, gradients[0], true);
  }
};

class OneDnnLinearNoBias : public torch::autograd::Function<OneDnnLinearNoBias> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* context, const at::Tensor& x,
                            const at::Tensor& weight) {
    return linearForward(context, x, weight, at::Tensor());
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* context,
                                                 torch::autograd::variable_list gradients) {
    return linearBackward(context, gradients[0], false);
  }
};

bool denseFloatCpu(const at::Tensor& tensor) {
  return tensor.defined() && tensor.scalar_type() == at::kFloat && tensor.device().is_cpu() &&
         tensor.layout() == at::kStrided && tensor.numel() > 0;
}

class OneDnnMatmulPath final : public MatmulPath {
 public:
  [[nodiscard]] std::string_view name() const override { return "onednn"; }
  [[nodiscard]] at::Tensor linear(const at::Tensor& x, const at::Tensor& weight,
                                  const at::Tensor& bias) const override {
    if (!oneDnnAccepts(x, weight, bias)) return atenMatmulPath().linear(x, weight, bias);
    const OpScope scope("tb::onednn::linear");
    return bias.defined() ? OneDnnLinear::apply(x, weight, bias)
                          : OneDnnLinearNoBias::apply(x, weight);
  }
  [[nodiscard]] LinearGradients linearGradients(const at::Tensor& gradient, const at::Tensor& x,
                                                const at::Tensor& weight,
                                                bool withBias) const override {
    if (!oneDnnAccepts(x, weight, at::Tensor()) || !denseFloatCpu(gradient)) {
      return atenLinearGradients(gradient, x, weight, withBias);
    }
    const OpScope scope("tb::onednn::linear_backward");
    return gradientsOf(gradient, x, weight, true, true, withBias);
  }
};

}  // namespace

bool oneDnnAccepts(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  if (!denseFloatCpu(x) || !denseFloatCpu(weight) || x.dim() < 1 || weight.dim() != 2) {
    return false;
  }
  if (x.size(-1) != weight.size(1) || !x.is_contiguous()) return false;
  if (!weight.is_contiguous() && !weight.t().is_contiguous()) return false;
  if (!bias.defined()) return true;
  return denseFloatCpu(bias) && bias.dim() == 1 && bias.size(0) == weight.size(0) &&
         bias.is_contiguous();
}

const MatmulPath& oneDnnMatmulPath() {
  static const OneDnnMatmulPath path;
  return path;
}

std::string oneDnnVersion() {
  const dnnl_version_t* version = dnnl_version();
  return std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
         std::to_string(version->patch);
}

const std::vector<const MatmulPath*>& cpuMatmulPaths() {
  static const std::vector<const MatmulPath*> paths{&atenMatmulPath(), &oneDnnMatmulPath()};
  return paths;
}

}  // namespace tb::engine
