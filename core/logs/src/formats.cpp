// The table of formats, in detection order, and their names.
//
// Detection (log_import.cpp) first offers the start of the file to the
// document formats, then feeds cleaned lines to the line formats; for every
// line the formats are asked in this order and the first that claims the line
// owns it. The order and the precedence between formats follow from which
// lines can appear in another format's stream:
//
// - Document formats come first: their head (a JSON object, TFRecord framing)
//   is not a log line, and an event file is binary, which the line reader
//   refuses.
// - NeMo before Megatron: NeMo 2's `Training epoch 0, iteration 1/249 | …`
//   carries Megatron's `iteration i/n |` grammar, so a Megatron matcher that
//   searches the line would take it.
// - Megatron-DeepSpeed before Megatron: the fork's iteration line is
//   Megatron's with fields added (`consumed tokens`, `tokens per gpu per
//   second (tgs)`, `TFLOPs`); Megatron's matcher accepts it too.
// - Guest formats last: DeepSpeed engine lines (ThroughputTimer, `step=…
//   skipped=…`, `time (ms) | …`) appear inside every Megatron-DeepSpeed log,
//   and `:::MLLOG` lines inside the NeMo / Megatron logs of MLPerf
//   submissions. Their first line often comes before the host's first
//   training line (DeepSpeed prints every steps_per_print = 10 steps, Megatron
//   every log_interval = 100; MLPerf logs cache_clear and init before the
//   first step). So a guest's claim does not end detection: reading goes on
//   for a window (log_import.cpp, kGuestWindowBytes) and a host format's line
//   within it wins; without one the guest is the file's format (MLPerf before
//   DeepSpeed when both appear: the MLLOG lines are the submission's record).
//   A host's claim ends detection at once. Hosts do not nest in one another.
//   `--format` forces a format where this picks the other one.
//
// The warm-up default (--skip-first not given) is what the framework itself
// discounts, nothing more (docs/LOG_FORMATS.md, "Medians and how they are
// derived"): DeepSpeed's ThroughputTimer starts timing at its start_step = 2,
// so global steps 1 and 2 are out of its running average and records of
// those steps are warm-up here too (skipStepsUpTo = 2: by step, not by
// record count, since DeepSpeed prints every steps_per_print steps and its
// first record is usually step 10). Megatron-LM, Megatron-DeepSpeed and
// torchtitan discount nothing themselves, even though their first window or
// step is slow (users drop the first N records with --skip-first N); nor do
// the Trainer (a whole-run average only), NeMo, Lightning, MLPerf or event
// files' writers.
#include <array>

#include "format_parser.hpp"
#include "tb/common/text.hpp"

namespace tb::logs {
namespace detail {
namespace {

const std::array<FormatSpec, 9>& specTable() {
  static const std::array<FormatSpec, 9> table{{
      {.format = Format::HfTrainer,
       .name = "hf-trainer",
       .framework = "Hugging Face Trainer",
       .claimsHead = hfTrainerClaimsHead,
       .readDocument = readHfTrainer},
      {.format = Format::Tensorboard,
       .name = "tensorboard",
       .framework = "TensorBoard",
       .claimsHead = tensorboardClaimsHead,
       .readDocument = readTensorboard},
      {.format = Format::Nemo,
       .name = "nemo",
       .framework = "NeMo",
       .claimsLine = nemoClaimsLine,
       .makeLineFormat = makeNemoFormat},
      {.format = Format::MegatronDeepSpeed,
       .name = "megatron-deepspeed",
       .framework = "Megatron-DeepSpeed",
       .claimsLine = megatronDeepSpeedClaimsLine,
       .makeLineFormat = makeMegatronDeepSpeedFormat},
      {.format = Format::Megatron,
       .name = "megatron",
       .framework = "Megatron-LM",
       .claimsLine = megatronClaimsLine,
       .makeLineFormat = makeMegatronFormat},
      {.format = Format::Torchtitan,
       .name = "torchtitan",
       .framework = "torchtitan",
       .claimsLine = torchtitanClaimsLine,
       .makeLineFormat = makeTorchtitanFormat},
      {.format = Format::LightningCsv,
       .name = "lightning-csv",
       .framework = "PyTorch Lightning",
       .claimsLine = lightningCsvClaimsLine,
       .makeLineFormat = makeLightningCsvFormat},
      {.format = Format::Mlperf,
       .name = "mlperf",
       .framework = "MLPerf Training",
       .claimsLine = mlperfClaimsLine,
       .makeLineFormat = makeMlperfFormat},
      {.format = Format::DeepSpeed,
       .name = "deepspeed",
       .framework = "DeepSpeed",
       .skipStepsUpTo = 2,
       .readsScriptLoss = true,
       .claimsLine = deepSpeedClaimsLine,
       .makeLineFormat = makeDeepSpeedFormat},
  }};
  return table;
}

}  // namespace

const FormatSpec& formatSpec(Format format) {
  for (const FormatSpec& spec : specTable())
    if (spec.format == format) return spec;
  return specTable().front();  // unreachable: every enumerator has a row
}

}  // namespace detail

std::string_view formatName(Format format) { return detail::formatSpec(format).name; }

std::optional<Format> formatFromName(std::string_view name) {
  const std::string lower = toLower(trim(name));
  for (const detail::FormatSpec& spec : detail::specTable())
    if (spec.name == lower) return spec.format;
  return std::nullopt;
}

// In detection order (the table's), which is also the order messages list
// them in.
const std::vector<Format>& allFormats() {
  static const std::vector<Format> formats = [] {
    std::vector<Format> out;
    for (const detail::FormatSpec& spec : detail::specTable()) out.push_back(spec.format);
    return out;
  }();
  return formats;
}

}  // namespace tb::logs
