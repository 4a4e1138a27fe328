// Flash-attention on the CPU, in query tiles. Forward runs one task per
// (batch, head, query tile): the tile's scores against every key up to its
// last query, [tile, keys], exist only in a per-thread buffer, so no T×T
// tensor outlives the call, only the output and one log-sum-exp per row.
// Backward runs one task per (batch, KV head): every query head of the group
// and every key it reads belong to that task, so dQ, dK and dV are written in
// place with no locks and no per-thread copies; it rebuilds each tile's
// probabilities as exp(s − lse) instead of reading stored ones. A whole query
// tile sees all of its keys at once, so the softmax is the plain one (no
// online rescaling), and the five products per tile are GEMMs (matmul/gemm):
// with hd of 64 a tile product is 64×keys×64, large enough for a GEMM kernel,
// where vector dot products ran at a third of its rate (docs/PERF.md).
#include "fused/attention_kernels.hpp"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "matmul/gemm.hpp"
#include "fused/vector_kernels.hpp"

namespace tb::engine::fused::detail {
namespace {

using cpu::gemm;
using cpu::Op;
constexpr std::int64_t kQueryTile = 64;

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
  [[nodiscard]] std::int64_t queryStride() const { return s.heads * s.headDim; }
  [[nodiscard]] std::int64_t keyStride() const { return s.kvHeads * s.headDim; }
};

/// One query tile: queries [i0, i1) against keys [0, i1).
struct QueryTile {
  std::int64_t i0 = 0;
  std::int64_t i1 = 0;
  [[nodiscard]] std::int64_t rows() const { return i1 - i0; }
  [[nodiscard]] std::int64_t keys() const { return i1; }
};

}  // namespace

AttentionShape attentionShape(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  for (const at::Tensor* t : {&q, &k, &v}) {
    TORCH_CHECK(t->scalar_type() == at::kFloat && t->device().is_cpu(),
                "fused::causalAttention takes float32 CPU tensors, got ", t->scalar_type(), " on ",
                t->device());
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

AttentionForward attentionForward(const AttentionShape& s, const at::Tensor& q, const at::Tensor& k,
                                  const at::Tensor& v) {
  AttentionForward result{at::empty({s.batch, s.seq, s.heads * s.headDim}, q.options()),
                          at::empty({s.batch, s.heads, s.seq}, q.options())};
  const float* qp = q.data_ptr<float>();
  const float* kp = k.data_ptr<float>();
  const float* vp = v.data_ptr<float>();
  float* op = result.out.data_ptr<float>();
  float* lp = result.lse.data_ptr<float>();
  const RowIndex index{s};
  const std::int64_t tiles = (s.seq + kQueryTile - 1) / kQueryTile;
  const cpu::VectorKernels& vec = cpu::vectorKernels();

  at::parallel_for(0, s.batch * s.heads * tiles, 1, [&](std::int64_t begin, std::int64_t end) {
    std::vector<float> scores(static_cast<std::size_t>(kQueryTile * s.seq));
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t b = task / (s.heads * tiles);
      const std::int64_t h = (task / tiles) % s.heads;
      const std::int64_t g = h / s.groups();
      const std::int64_t i0 = (task % tiles) * kQueryTile;
      const QueryTile tile{i0, std::min(i0 + kQueryTile, s.seq)};
      const std::int64_t keys = tile.keys();
      gemm(Op::Plain, Op::Transposed, tile.rows(), keys, s.headDim, s.scale,
           qp + index.query(b, tile.i0, h), index.queryStride(), kp + index.key(b, 0, g),
           index.keyStride(), 0.0F, scores.data(), keys);
      for (std::int64_t i = tile.i0; i < tile.i1; ++i) {
        float* row = scores.data() + (i - tile.i0) * keys;
        const std::int64_t visible = i + 1;  // causal: keys 0..i
        const float rowMax = vec.maxOf(row, visible);
        const float sum = vec.expShifted(row, visible, rowMax);
        const float inverse = 1.0F / sum;
        for (std::int64_t j = 0; j < visible; ++j) row[j] *= inverse;
        std::fill(row + visible, row + keys, 0.0F);
        lp[index.lse(b, h, i)] = rowMax + std::log(sum);
      }
      gemm(Op::Plain, Op::Plain, tile.rows(), s.headDim, keys, 1.0F, scores.data(), keys,
           vp + index.key(b, 0, g), index.keyStride(), 0.0F, op + index.query(b, tile.i0, h),
           index.queryStride());
    }
  });
  return result;
}

AttentionGradients attentionBackward(const AttentionShape& s, const at::Tensor& q,
                                     const at::Tensor& k, const at::Tensor& v,
                                     const at::Tensor& lse, const at::Tensor& dOut) {
  // dQ is written whole, tile by tile; dK and dV accumulate over query heads.
  AttentionGradients grads{at::empty_like(q), at::zeros_like(k), at::zeros_like(v)};
  const float* qp = q.data_ptr<float>();
  const float* kp = k.data_ptr<float>();
  const float* vp = v.data_ptr<float>();
  const float* lp = lse.data_ptr<float>();
  const float* dop = dOut.data_ptr<float>();
  float* dqp = grads.dq.data_ptr<float>();
  float* dkp = grads.dk.data_ptr<float>();
  float* dvp = grads.dv.data_ptr<float>();
  const RowIndex index{s};
  const std::int64_t qs = index.queryStride();
  const std::int64_t ks = index.keyStride();
  const cpu::VectorKernels& vec = cpu::vectorKernels();

  at::parallel_for(0, s.batch * s.kvHeads, 1, [&](std::int64_t begin, std::int64_t end) {
    const auto tileFloats = static_cast<std::size_t>(kQueryTile * s.seq);
    std::vector<float> probabilities(tileFloats);
    std::vector<float> dScores(tileFloats);
    for (std::int64_t task = begin; task < end; ++task) {
      const std::int64_t b = task / s.kvHeads;
      const std::int64_t g = task % s.kvHeads;
      const float* kRows = kp + index.key(b, 0, g);
      const float* vRows = vp + index.key(b, 0, g);
      for (std::int64_t h = g * s.groups(); h < (g + 1) * s.groups(); ++h) {
        for (std::int64_t i0 = 0; i0 < s.seq; i0 += kQueryTile) {
          const QueryTile tile{i0, std::min(i0 + kQueryTile, s.seq)};
          const std::int64_t rows = tile.rows();
          const std::int64_t keys = tile.keys();
          const float* qTile = qp + index.query(b, tile.i0, h);
          const float* doTile = dop + index.query(b, tile.i0, h);
          float* p = probabilities.data();
          float* ds = dScores.data();
          // P = exp(scale·QKᵀ − lse), zero above the diagonal.
          gemm(Op::Plain, Op::Transposed, rows, keys, s.headDim, s.scale, qTile, qs, kRows, ks,
               0.0F, p, keys);
          // dP = dO·Vᵀ
          gemm(Op::Plain, Op::Transposed, rows, keys, s.headDim, 1.0F, doTile, qs, vRows, ks, 0.0F,
               ds, keys);
          for (std::int64_t i = tile.i0; i < tile.i1; ++i) {
            const std::int64_t r = i - tile.i0;
            const float rowLse = lp[index.lse(b, h, i)];
            float* pRow = p + r * keys;
            float* dsRow = ds + r * keys;
            // The softmax backward's correction term rowsum(P ∘ dP), as the
            // plain softmax backward forms it (equal to rowsum(dO ∘ O), but
            // from the same dP values, so a row whose probabilities are one
            // key's 1.0 gets an exact zero gradient, as the reference does).
            const float delta = vec.expShiftedDot(pRow, dsRow, i + 1, rowLse);
            vec.softmaxBackward(pRow, dsRow, i + 1, delta, s.scale);
            std::fill(pRow + i + 1, pRow + keys, 0.0F);
            std::fill(dsRow + i + 1, dsRow + keys, 0.0F);
          }
          // dV += Pᵀ·dO, dQ = dS·K, dK += dSᵀ·Q
          gemm(Op::Transposed, Op::Plain, keys, s.headDim, rows, 1.0F, p, keys, doTile, qs, 1.0F,
               dvp + index.key(b, 0, g), ks);
          gemm(Op::Plain, Op::Plain, rows, s.headDim, keys, 1.0F, ds, keys, kRows, ks, 0.0F,
               dqp + index.query(b, tile.i0, h), qs);
          gemm(Op::Transposed, Op::Plain, keys, s.headDim, rows, 1.0F, ds, keys, qTile, qs, 1.0F,
               dkp + index.key(b, 0, g), ks);
        }
      }
    }
  });
  return grads;
}

}  // namespace tb::engine::fused::detail
