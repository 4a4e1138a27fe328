// Card sizes are nvidia-smi's "Total" in MiB (H200 143771, H100 SXM 81559,
// A100 81920 / 40960, L40S 46068, RTX 4090 24564): the marketing "80 GB" is
// neither GiB nor what a process can allocate, and a plan made against the
// larger number would not fit.
#include "ui/memory/memory_page_inputs.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "tb/common/units.hpp"
#include "tb/model/model_config.hpp"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

GpuCard card(const char* name, double mib) {
  return {QString::fromLatin1(name), mib * tb::kMiB / tb::kGiB};
}

// The field if it differs from the preset's, so applyOverrides names the
// result "<preset>+custom" only when something really changed.
std::optional<std::int64_t> differing(qint64 value, std::int64_t preset) {
  return value == preset ? std::nullopt : std::optional<std::int64_t>(value);
}

}  // namespace

const QVector<GpuCard>& gpuCards() {
  static const QVector<GpuCard> cards = {card("H200 141GB", 143771), card("H100 80GB", 81559),
                                         card("A100 80GB", 81920),   card("L40S 48GB", 46068),
                                         card("A100 40GB", 40960),   card("RTX 4090 24GB", 24564)};
  return cards;
}

// Stored in settings as is, so it is never translated (like the card names).
QString customCardName() { return QStringLiteral("Custom"); }

MemoryPageInputs withPresetShape(MemoryPageInputs inputs, const QString& preset) {
  const auto config = tb::model::findPreset(toStdString(preset));
  if (!config) return inputs;
  inputs.preset = preset;
  inputs.vocab = config->vocab;
  inputs.dim = config->dim;
  inputs.layers = config->layers;
  inputs.heads = config->heads;
  inputs.kvHeads = config->kvHeads;
  inputs.ffn = config->ffn;
  return inputs;
}

std::uint64_t budgetBytes(const MemoryPageInputs& inputs) {
  for (const GpuCard& gpu : gpuCards()) {
    if (gpu.name == inputs.card) {
      return static_cast<std::uint64_t>(std::llround(gpu.gib * tb::kGiB));
    }
  }
  return static_cast<std::uint64_t>(std::llround(std::max(0.0, inputs.customGiB) * tb::kGiB));
}

tb::Expected<tb::memory::PredictionInput> toPredictionInput(const MemoryPageInputs& inputs) {
  auto preset = tb::model::findPreset(toStdString(inputs.preset));
  if (!preset) return preset.error();
  tb::model::ModelOverrides overrides;
  overrides.vocab = differing(inputs.vocab, preset->vocab);
  overrides.dim = differing(inputs.dim, preset->dim);
  overrides.layers = differing(inputs.layers, preset->layers);
  overrides.heads = differing(inputs.heads, preset->heads);
  overrides.kvHeads = differing(inputs.kvHeads, preset->kvHeads);
  overrides.ffn = differing(inputs.ffn, preset->ffn);

  tb::memory::PredictionInput input;
  input.model = tb::model::applyOverrides(*preset, overrides);
  // Sequence and micro-batch are training choices, not the architecture's:
  // they do not make the model "custom".
  input.model.seq = inputs.seq;
  input.model.batch = inputs.batch;
  if (const tb::Status valid = tb::model::validate(input.model); !valid) return valid.error();

  auto dtype = tb::memory::parseDType(toStdString(inputs.dtype));
  if (!dtype) return dtype.error();
  auto profile = tb::memory::parseProfile(toStdString(inputs.profile));
  if (!profile) return profile.error();
  auto recompute = tb::memory::parseRecompute(toStdString(inputs.recompute));
  if (!recompute) return recompute.error();

  input.parallel.dp = inputs.dp;
  input.parallel.tp = inputs.tp;
  input.parallel.pp = inputs.pp;
  input.parallel.cp = inputs.cp;
  input.parallel.zero = inputs.zero;
  input.parallel.sequenceParallel = inputs.sequenceParallel;
  input.parallel.flashAttention = inputs.flashAttention;
  input.parallel.dtype = *dtype;
  if (const tb::Status valid = tb::memory::validate(input.parallel); !valid) {
    return valid.error();
  }
  input.profile = *profile;
  input.recompute = *recompute;
  input.compiledStep = inputs.compile && (input.profile == tb::memory::Profile::Engine ||
                                          input.profile == tb::memory::Profile::Torchtitan);
  if (input.profile == tb::memory::Profile::Engine) {
    // The tuned runtime's flat gradient buffers live through the whole step
    // and its attention reads K and V in place: both move the peak.
    if (inputs.runtime != QStringLiteral("tuned") && inputs.runtime != QStringLiteral("stock")) {
      return tb::makeError(tb::ErrorKind::BadInput,
                           "runtime: '" + toStdString(inputs.runtime) + "' is not tuned or stock");
    }
    input.flatGradients = input.gqaInPlace = inputs.runtime == QStringLiteral("tuned");
  }
  return input;
}

}  // namespace tb::ui
