// The hooks are post-hooks of each parameter's AccumulateGrad node, the ones
// DDP's Reducer registers: they run after the gradient was added into
// .grad(), so a bucket whose parameters have all fired holds its final sum.
// The nodes are held here, since a parameter keeps only a weak reference to
// its accumulator and the hook would die with it.
#include "distributed/gradient_sync.hpp"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace tb::engine {
namespace {
constexpr std::size_t kNoBucket = static_cast<std::size_t>(-1);
}  // namespace

std::vector<Bucket> planBuckets(const std::vector<GradientSpan>& spans, std::int64_t firstCapBytes,
                                std::int64_t capBytes) {
  if (spans.empty()) return {};
  constexpr std::int64_t kElementBytes = 4;
  if (capBytes == 0) {
    // One bucket of everything: the spans tile the buffer.
    Bucket all{spans.front().offset, 0, {}};
    for (std::size_t i = 0; i < spans.size(); ++i) {
      all.offset = std::min(all.offset, spans[i].offset);
      all.numel += spans[i].numel;
      all.parameters.push_back(i);
    }
    return {all};
  }
  // Walk the spans in the order backward produces them. A span joins an
  // open bucket it is adjacent to, so that buckets stay contiguous even
  // where the buffer interleaves regions produced at different times (the
  // flat buffer keeps the norms apart from the matrices); as in DDP's
  // compute_bucket_assignment_by_size, a bucket takes parameters until it
  // holds at least its cap, then closes.
  std::vector<std::size_t> order(spans.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return spans[a].readyOrder < spans[b].readyOrder;
  });
  std::vector<Bucket> buckets;
  std::vector<std::int64_t> readyBy;
  std::vector<bool> closed;
  for (const std::size_t index : order) {
    const GradientSpan& span = spans[index];
    std::size_t target = buckets.size();
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      const bool below = buckets[b].offset == span.offset + span.numel;
      const bool above = buckets[b].offset + buckets[b].numel == span.offset;
      if (!closed[b] && (below || above)) {
        target = b;
        break;
      }
    }
    if (target == buckets.size()) {
      buckets.push_back({span.offset, 0, {}});
      readyBy.push_back(0);
      closed.push_back(false);
    }
    Bucket& bucket = buckets[target];
    bucket.offset = std::min(bucket.offset, span.offset);
    bucket.numel += span.numel;
    bucket.parameters.push_back(index);
    readyBy[target] = std::max(readyBy[target], span.readyOrder);
    const std::int64_t cap = target == 0 ? std::min(firstCapBytes, capBytes) : capBytes;
    closed[target] = bucket.numel * kElementBytes >= cap;
  }
  std::vector<std::size_t> launch(buckets.size());
  std::iota(launch.begin(), launch.end(), std::size_t{0});
  std::stable_sort(launch.begin(), launch.end(),
                   [&](std::size_t a, std::size_t b) { return readyBy[a] < readyBy[b]; });
  std::vector<Bucket> launched;
  launched.reserve(buckets.size());
  for (const std::size_t index : launch) launched.push_back(std::move(buckets[index]));
  return launched;
}

struct GradientSync::Hooked {
  std::shared_ptr<torch::autograd::Node> accumulator;
};

namespace {

class ReadyHook final : public torch::autograd::FunctionPostHook {
 public:
  ReadyHook(GradientSync& sync, std::size_t index) : sync_(&sync), index_(index) {}
  torch::autograd::variable_list operator()(
      const torch::autograd::variable_list& outputs,
      const torch::autograd::variable_list& /*inputs*/) override {
    sync_->gradientReady(index_);
    return outputs;
  }

 private:
  GradientSync* sync_;
  std::size_t index_;
};

}  // namespace

GradientSync::GradientSync(Communicator& communicator, const std::vector<NamedTensor>& parameters,
                           at::Tensor flatGradients, std::int64_t bucketBytes,
                           std::optional<std::size_t> lookupTable)
    : communicator_(&communicator), parameters_(parameters), table_(lookupTable) {
  const auto count = static_cast<std::int64_t>(parameters_.size());
  if (table_ && (*table_ >= parameters_.size() || parameters_[*table_].tensor.dim() != 2)) {
    throw std::logic_error("gradient sync: lookup table " + std::to_string(*table_) +
                           " is not a [rows, dim] parameter");
  }
  copies_ = !flatGradients.defined();
  if (copies_) {
    // The table's rows travel on their own: it takes no room here.
    std::int64_t total = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      const auto index = static_cast<std::size_t>(i);
      const auto numel = table_ == index ? 0 : parameters_[index].tensor.numel();
      spans_.push_back({total, numel, count - 1 - i});
      total += numel;
    }
    buffer_ = at::zeros({total}, parameters_.front().tensor.options().requires_grad(false));
  } else {
    buffer_ = flatGradients;
    const auto* base = static_cast<const float*>(flatGradients.data_ptr());
    for (std::int64_t i = 0; i < count; ++i) {
      const at::Tensor& grad = parameters_[static_cast<std::size_t>(i)].tensor.grad();
      if (!grad.defined() || !grad.is_contiguous()) {
        throw std::logic_error("gradient sync: " + parameters_[static_cast<std::size_t>(i)].name +
                               " has no contiguous gradient view in the flat buffer");
      }
      spans_.push_back(
          {static_cast<const float*>(grad.data_ptr()) - base, grad.numel(), count - 1 - i});
    }
  }
  // The buckets hold every gradient but the table's.
  std::vector<GradientSpan> bucketed;
  std::vector<std::size_t> parameterOf;
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    if (table_ == i) continue;
    bucketed.push_back(spans_[i]);
    parameterOf.push_back(i);
  }
  buckets_ = planBuckets(bucketed, kFirstBucketBytes, bucketBytes);
  bucketOf_.assign(parameters_.size(), kNoBucket);
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    for (std::size_t& index : buckets_[b].parameters) {
      index = parameterOf[index];
      bucketOf_[index] = b;
    }
  }
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    auto accumulator = torch::autograd::impl::grad_accumulator(parameters_[i].tensor);
    if (!accumulator) {
      throw std::logic_error("gradient sync: " + parameters_[i].name + " is not a leaf");
    }
    accumulator->add_post_hook(std::make_unique<ReadyHook>(*this, i));
    hooks_.push_back(std::make_unique<Hooked>(Hooked{std::move(accumulator)}));
  }
}

GradientSync::~GradientSync() = default;

void GradientSync::beginStep(std::int64_t step, const at::Tensor& tokens) {
  step_ = step;
  tableStarted_ = false;
  tableRowsSent_ = 0;
  if (table_) {
    if (!tokens.defined()) {
      throw std::logic_error("gradient sync: a step with a lookup table needs its tokens");
    }
    // Floats: the communicator sums float32, and counts up to the world
    // size are exact in them.
    const at::Tensor& table = parameters_[*table_].tensor;
    touched_ = at::zeros({table.size(0)}, table.options().requires_grad(false));
    touched_.index_fill_(0, tokens.reshape(-1).to(touched_.device()), 1.0);
    touchedSum_ = communicator_->allReduceSum(
        touched_, "all-reduce of the embedding rows touched in step " + std::to_string(step));
  }
  ready_.assign(parameters_.size(), false);
  waitingOn_.clear();
  for (const Bucket& bucket : buckets_) waitingOn_.push_back(bucket.parameters.size());
  nextStart_ = 0;
  startedDuringBackward_ = 0;
  pending_.clear();
  inBackward_ = true;
}

void GradientSync::gradientReady(std::size_t index) {
  if (!inBackward_) return;  // a backward outside a training step (a test's own)
  const std::size_t bucket = bucketOf_[index];
  if (bucket == kNoBucket) {
    if (tableStarted_) {
      throw std::logic_error("gradient sync: " + parameters_[index].name +
                             " received a second gradient after its rows were sent");
    }
    ready_[index] = true;
    startReadyBuckets();
    return;
  }
  if (ready_[index]) {
    // A second accumulation: its bucket may already be on the wire.
    if (bucket < nextStart_) {
      throw std::logic_error("gradient sync: " + parameters_[index].name +
                             " received a second gradient after its bucket was sent");
    }
    return;
  }
  ready_[index] = true;
  if (copies_) {
    const GradientSpan& span = spans_[index];
    buffer_.narrow(0, span.offset, span.numel).copy_(parameters_[index].tensor.grad().reshape(-1));
  }
  --waitingOn_[bucket];
  startReadyBuckets();
}

void GradientSync::startReadyBuckets() {
  while (nextStart_ < buckets_.size() && waitingOn_[nextStart_] == 0) {
    start(nextStart_);
    ++startedDuringBackward_;
  }
  if (table_ && ready_[*table_] && nextStart_ == buckets_.size()) startTableRows();
}

void GradientSync::startTableRows() {
  if (tableStarted_) return;
  tableStarted_ = true;
  touchedSum_->wait();
  touchedSum_.reset();
  // Ascending on every rank, since every rank holds the same sums.
  tableRows_ = touched_.nonzero().reshape(-1);
  touched_.reset();
  tableRowsSent_ = tableRows_.numel();
  at::Tensor& grad = parameters_[*table_].tensor.mutable_grad();
  // Per-tensor gradients before backward reached the table: it adds zeros.
  if (!grad.defined()) grad = at::zeros_like(parameters_[*table_].tensor);
  tableSum_ = grad.index_select(0, tableRows_);
  pending_.push_back(communicator_->allReduceSum(
      tableSum_, "all-reduce of " + std::to_string(tableRows_.numel()) +
                     " embedding rows of step " + std::to_string(step_)));
}

void GradientSync::start(std::size_t bucket) {
  const Bucket& b = buckets_[bucket];
  pending_.push_back(communicator_->allReduceSum(buffer_.narrow(0, b.offset, b.numel),
                                                 "all-reduce of gradient bucket " +
                                                     std::to_string(bucket) + " of step " +
                                                     std::to_string(step_)));
  ++nextStart_;
}

void GradientSync::finish() {
  inBackward_ = false;
  if (copies_) {
    // Parameters that got no gradient this step contribute zeros.
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
      if (!ready_[i]) buffer_.narrow(0, spans_[i].offset, spans_[i].numel).zero_();
    }
  }
  while (nextStart_ < buckets_.size()) start(nextStart_);
  if (table_) startTableRows();
  for (const auto& pending : pending_) pending->wait();
  pending_.clear();
  if (table_) {
    parameters_[*table_].tensor.mutable_grad().index_copy_(0, tableRows_, tableSum_);
    tableRows_.reset();  // nothing of the exchange outlives the step
    tableSum_.reset();
  }
  if (!copies_) return;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (table_ == i) continue;
    at::Tensor& grad = parameters_[i].tensor.mutable_grad();
    const at::Tensor summed =
        buffer_.narrow(0, spans_[i].offset, spans_[i].numel).view(parameters_[i].tensor.sizes());
    if (grad.defined()) grad.copy_(summed);
    else grad = summed.clone();
  }
}

}  // namespace tb::engine
