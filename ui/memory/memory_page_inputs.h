// Everything the Memory page's form holds, as one plain value: the form
// fills it, QSettings stores it, and a worker turns it into a prediction.
// The model shape is stored in full (not as overrides) so the form shows
// what is predicted; the overrides are recovered by comparing with the preset.
#pragma once

#include <QString>
#include <QVector>

#include "tb/common/expected.hpp"
#include "tb/memory/predictor.hpp"

namespace tb::ui {

/// A GPU the budget can be taken from; bytes are what nvidia-smi reports as
/// the card's total memory, which is what the allocator can ever reach.
struct GpuCard {
  QString name;
  double gib = 0.0;
};

/// The cards offered in the GPU list, largest first.
[[nodiscard]] const QVector<GpuCard>& gpuCards();
/// Name of the entry that takes its size from the custom GiB field.
[[nodiscard]] QString customCardName();

/// The form's values.
struct MemoryPageInputs {
  QString preset = QStringLiteral("llama3-8b");
  qint64 vocab = 128256;
  qint64 dim = 4096;
  qint64 layers = 32;
  qint64 heads = 32;
  qint64 kvHeads = 8;
  qint64 ffn = 14336;
  qint64 seq = 8192;
  qint64 batch = 1;  ///< micro-batch per rank
  qint64 dp = 8;
  qint64 tp = 1;
  qint64 pp = 1;
  qint64 cp = 1;  ///< context-parallel ranks (seq/cp tokens each)
  bool sequenceParallel = false;
  bool flashAttention = true;
  int zero = 1;
  QString dtype = QStringLiteral("bf16");
  QString profile = QStringLiteral("megatron");
  /// The engine profile's runtime, "tuned" (what the Runs page runs by
  /// default) or "stock"; the cluster profiles ignore it.
  QString runtime = QStringLiteral("tuned");
  QString recompute = QStringLiteral("none");  ///< as --recompute spells it
  /// --compile on: the engine's compiled step, or torch.compile of each block
  /// under the torchtitan profile; the other profiles ignore it.
  bool compile = false;
  QString card = QStringLiteral("H100 80GB");
  double customGiB = 80.0;  ///< used when `card` is customCardName()

  friend bool operator==(const MemoryPageInputs&, const MemoryPageInputs&) = default;
};

/// The inputs with the shape of `preset` (seq and batch kept); unchanged
/// when the preset is unknown.
[[nodiscard]] MemoryPageInputs withPresetShape(MemoryPageInputs inputs, const QString& preset);

/// The card's memory in bytes (the custom field for the custom entry).
[[nodiscard]] std::uint64_t budgetBytes(const MemoryPageInputs& inputs);

/// The prediction input these values describe; the model is "<preset>+custom"
/// when the shape differs from the preset. Errors name the bad value.
[[nodiscard]] tb::Expected<tb::memory::PredictionInput> toPredictionInput(
    const MemoryPageInputs& inputs);

}  // namespace tb::ui
