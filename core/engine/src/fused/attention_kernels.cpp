// Flash-attention on the CPU. Forward runs one task per (batch, head, query
// tile): the tile's queries stream over key tiles up to the diagonal with a
// running max and sum (the online softmax), so a query tile's K and V rows
// stay in cache while every row of the tile uses them, and only the output
// and one log-sum-exp per row outlive the call. Backward runs one task per
// (batch, KV head): every query head of the group and every key it reads
// belong to that task, so dQ, dK and dV are accumulated in place with no
// locks and no per-thread copies; it rebuilds each probability as
// exp(s − lse) instead of reading a stored one. The products over hd are
// at::vec::Vectorized dot products and AXPYs: with hd of 8 to 128, a GEMM
// call per tile would cost more in dispatch than it saves.
#include "fused/attention_kernels.hpp"

#include <ATen/Parallel.h>
#include <ATen/cpu/vec/vec.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace tb::engine::fused::detail {
namespace {

using Vec = at::vec::Vectorized<float>;
constexpr std::int64_t kQueryTile = 32;
constexpr std::int64_t kKeyTile = 64;

float dot(const float* a, const float* b, std::int64_t n) {
  Vec acc(0.0F);
  std::int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) {
    acc = at::vec::fmadd(Vec::loadu(a + i), Vec::loadu(b + i), acc);
  }
  std::array<float, Vec::size()> lanes{};
  acc.store(lanes.data());
  float sum = 0.0F;
  for (const float lane : lanes) sum += lane;
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// y += alpha · x
void axpy(float alpha, const float* x, float* y, std::int64_t n) {
  const Vec a(alpha);
  std::int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) {
    at::vec::fmadd(a, Vec::loadu(x + i), Vec::loadu(y + i)).store(y + i);
  }
  for (; i < n; ++i) y[i] += alpha * x[i];
}

void scaleInPlace(float* y, float alpha, std::int64_t n) {
  const Vec a(alpha);
  std::int64_t i = 0;
  for (; i + Vec::size() <= n; i += Vec::size()) (Vec::loadu(y + i) * a).store(y + i);
  for (; i < n; ++i) y[i] *= alpha;
}

// Row offsets into the [B, T, heads, hd] layouts of q / out and k / v.
struct RowIndex {
  const AttentionShape& s;
  [[nodiscard]] std::int64_t query(std::int64_t b, std::int64_t t, std::int64_t h) const {
    return ((b * s.seq + t) * s.heads + h) * s.headDim;
  }
  [[nodiscard]] std::int64_t key(std::int64_t b, std::int64_t t, std::int64_t g) const {
    return ((b * s.seq + t) * s.kvHeads + g) * s.headDim;
  }
  [[nodiscard]] std::int64_t lse(std::int64_t b, std::int64_t h, std::int64_t t) const {
    return (b * s.heads + h) * s.seq + t;
  }
};

}  // namespace

AttentionShape attentionShape(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  for (const at::Tensor* t : {&q, &k, &v}) {
    TORCH_CHECK(t->scalar_type() == at::kFloat && t->device().is_cpu(),
                "fused::causalAttention takes float32 CPU tensors, got ", t->scalar_type(),
                " on ", t->device());
  }
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && k.sizes() == v.sizes(),
              "fused::causalAttention: q [B,T,H,hd] and k, v [B,T,KV,hd] expected, got q ",
              q.sizes(), ", k ", k.sizes(), ", v ", v.sizes());
  TORCH_CHECK(k.size(0) == q.size(0) && k.size(1) == q.size(1) && k.size(3) == q.size(3) &&
                  k.size(2) > 0 && q.size(2) % k.size(2) == 0,
              "fused::causalAttention: k ", k.sizes(), " does not match q ", q.sizes(),
              " (the query heads must be a multiple of the KV heads)");
  AttentionShape s;
  s.batch = q.size(0);
  s.seq = q.size(1);
  s.heads = q.size(2);
  s.kvHeads = k.size(2);
  s.headDim = q.size(3);
  s.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.headDim)));
  return s;
}

AttentionForward attentionForward(const AttentionShape& s, const at::Tensor& q,
                                  const at::Tensor& k, const at::Tensor& v) {
  AttentionForward result{at::empty({s.batch, s.seq, s.heads * s.headDim}, q.options()),
                          at::empty({s.batch, s.heads, s.seq}, q.options())};
  const float* qp = q.data_ptr<float>();
  const float* kp = k.data_ptr<float>();
  const float* vp = v.data_ptr<float>();
  float* op = result.out.data_ptr<float>();
  float* lp = result.lse.data_ptr<float>();
  const RowIndex index{s};
  const std::int64_t hd = s.headDim;
  const std::int64_t tiles = (s.seq + kQueryTile - 1) / kQueryTile;

  at::parallel_for(0, s.batch * s.heads * tiles, 1, [&](std::int64_t begin, std::int64_t end) {
    std::vector<float> acc(static_cast<std::size_t>(kQueryTile * hd));
    std::array<float, kKeyTile> scores{};
    std::array<float, kQueryTile> rowMax{};
    std::array<float, kQueryTile> rowSum{};
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t b = task / (s.heads * tiles);
      const std::int64_t h = (task / tiles) % s.heads;
      const std::int64_t g = h / s.groups();
      const std::int64_t i0 = (task % tiles) * kQueryTile;
      const std::int64_t i1 = std::min(i0 + kQueryTile, s.seq);
      std::fill(acc.begin(), acc.end(), 0.0F);
      rowMax.fill(-std::numeric_limits<float>::infinity());
      rowSum.fill(0.0F);
      for (std::int64_t j0 = 0; j0 < i1; j0 += kKeyTile) {
        for (std::int64_t i = std::max(i0, j0); i < i1; ++i) {
          const std::int64_t r = i - i0;
          const float* qi = qp + index.query(b, i, h);
          const std::int64_t jEnd = std::min(j0 + kKeyTile, i + 1);
          float tileMax = -std::numeric_limits<float>::infinity();
          for (std::int64_t j = j0; j < jEnd; ++j) {
            const float score = s.scale * dot(qi, kp + index.key(b, j, g), hd);
            scores[static_cast<std::size_t>(j - j0)] = score;
            tileMax = std::max(tileMax, score);
          }
          float* accRow = acc.data() + r * hd;
          const float newMax = std::max(rowMax[static_cast<std::size_t>(r)], tileMax);
          const float rescale = std::exp(rowMax[static_cast<std::size_t>(r)] - newMax);
          scaleInPlace(accRow, rescale, hd);
          float sum = rowSum[static_cast<std::size_t>(r)] * rescale;
          for (std::int64_t j = j0; j < jEnd; ++j) {
            const float p = std::exp(scores[static_cast<std::size_t>(j - j0)] - newMax);
            sum += p;
            axpy(p, vp + index.key(b, j, g), accRow, hd);
          }
          rowMax[static_cast<std::size_t>(r)] = newMax;
          rowSum[static_cast<std::size_t>(r)] = sum;
        }
      }
      for (std::int64_t i = i0; i < i1; ++i) {
        const auto r = static_cast<std::size_t>(i - i0);
        float* outRow = op + index.query(b, i, h);
        const float* accRow = acc.data() + static_cast<std::int64_t>(r) * hd;
        for (std::int64_t c = 0; c < hd; ++c) outRow[c] = accRow[c] / rowSum[r];
        lp[index.lse(b, h, i)] = rowMax[r] + std::log(rowSum[r]);
      }
    }
  });
  return result;
}

AttentionGradients attentionBackward(const AttentionShape& s, const at::Tensor& q,
                                     const at::Tensor& k, const at::Tensor& v,
                                     const at::Tensor& out, const at::Tensor& lse,
                                     const at::Tensor& dOut) {
  AttentionGradients grads{at::zeros_like(q), at::zeros_like(k), at::zeros_like(v)};
  const float* qp = q.data_ptr<float>();
  const float* kp = k.data_ptr<float>();
  const float* vp = v.data_ptr<float>();
  const float* op = out.data_ptr<float>();
  const float* lp = lse.data_ptr<float>();
  const float* dop = dOut.data_ptr<float>();
  float* dqp = grads.dq.data_ptr<float>();
  float* dkp = grads.dk.data_ptr<float>();
  float* dvp = grads.dv.data_ptr<float>();
  const RowIndex index{s};
  const std::int64_t hd = s.headDim;

  at::parallel_for(0, s.batch * s.kvHeads, 1, [&](std::int64_t begin, std::int64_t end) {
    // rowsum(dO ∘ O) per query row: the softmax backward's correction term.
    std::vector<float> delta(static_cast<std::size_t>(s.seq));
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t b = task / s.kvHeads;
      const std::int64_t g = task % s.kvHeads;
      for (std::int64_t h = g * s.groups(); h < (g + 1) * s.groups(); ++h) {
        for (std::int64_t i = 0; i < s.seq; ++i) {
          delta[static_cast<std::size_t>(i)] =
              dot(dop + index.query(b, i, h), op + index.query(b, i, h), hd);
        }
        for (std::int64_t i0 = 0; i0 < s.seq; i0 += kQueryTile) {
          const std::int64_t i1 = std::min(i0 + kQueryTile, s.seq);
          for (std::int64_t j0 = 0; j0 < i1; j0 += kKeyTile) {
            for (std::int64_t i = std::max(i0, j0); i < i1; ++i) {
              const float* qi = qp + index.query(b, i, h);
              const float* doi = dop + index.query(b, i, h);
              float* dqi = dqp + index.query(b, i, h);
              const float rowLse = lp[index.lse(b, h, i)];
              const float rowDelta = delta[static_cast<std::size_t>(i)];
              const std::int64_t jEnd = std::min(j0 + kKeyTile, i + 1);
              for (std::int64_t j = j0; j < jEnd; ++j) {
                const std::int64_t kj = index.key(b, j, g);
                const float p = std::exp(s.scale * dot(qi, kp + kj, hd) - rowLse);
                axpy(p, doi, dvp + kj, hd);
                const float dScore = p * (dot(doi, vp + kj, hd) - rowDelta) * s.scale;
                axpy(dScore, kp + kj, dqi, hd);
                axpy(dScore, qi, dkp + kj, hd);
              }
            }
          }
        }
      }
    }
  });
  return grads;
}

}  // namespace tb::engine::fused::detail
