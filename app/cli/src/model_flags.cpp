// The flags are plain CLI11 options into plain structs; every check lives in
// the core (model::validate, memory::validate) so the GUI gets the same
// messages for the same mistakes.
#include "model_flags.hpp"

#include <CLI/CLI.hpp>

#include "tb/common/text.hpp"

namespace tb::cli {

void addModelFlags(CLI::App& command, ModelFlags& flags) {
  command
      .add_option("--model", flags.model,
                  "Preset: " + joinList(model::presetNames()) + " (default tiny)")
      ->type_name("NAME");
  model::ModelOverrides& o = flags.overrides;
  command.add_option("--vocab", o.vocab, "Vocabulary size")->type_name("N");
  command.add_option("--dim", o.dim, "Model width")->type_name("N");
  command.add_option("--layers", o.layers, "Decoder blocks")->type_name("N");
  command.add_option("--heads", o.heads, "Query heads")->type_name("N");
  command.add_option("--kv-heads", o.kvHeads, "Key/value heads")->type_name("N");
  command.add_option("--ffn", o.ffn, "SwiGLU hidden width")->type_name("N");
  command.add_option("--seq", o.seq, "Tokens per sequence")->type_name("N");
  command.add_option("--batch,--micro-batch", o.batch, "Sequences per micro-batch per rank")
      ->type_name("N");
}

Expected<model::ModelConfig> resolveModel(const ModelFlags& flags) {
  auto preset = model::findPreset(flags.model);
  if (!preset) return makeError(ErrorKind::BadInput, "--model: " + preset.error().message);
  model::ModelConfig config = model::applyOverrides(*preset, flags.overrides);
  if (Status valid = model::validate(config); !valid) return valid.error();
  return config;
}

void addParallelFlags(CLI::App& command, ParallelFlags& flags) {
  command.add_option("--dp", flags.dp, "Data-parallel ranks (default 1)")->type_name("N");
  command.add_option("--tp", flags.tp, "Tensor-parallel ranks (default 1)")->type_name("N");
  command.add_option("--pp", flags.pp, "Pipeline stages, 1F1B (default 1)")->type_name("N");
  command
      .add_option("--cp", flags.cp,
                  "Context-parallel ranks, each holding seq/cp tokens; FSDP and ZeRO shard "
                  "over dp x cp (default 1)")
      ->type_name("N");
  command.add_option("--zero", flags.zero, "ZeRO stage 0..3 over the DP ranks (default 0)")
      ->type_name("0..3");
  command
      .add_option("--dtype", flags.dtype,
                  "fp32, bf16 or fp16 (default fp32 for engine, bf16 for cluster profiles)")
      ->type_name("DTYPE");
  command
      .add_option("--attention", flags.attention,
                  "flash or eager (default eager for engine, flash for cluster profiles)")
      ->type_name("KIND");
  command.add_flag("--sequence-parallel", flags.sequenceParallel,
                   "Sequence parallelism (Megatron's, torchtitan's TP plan): norm "
                   "activations split over TP");
  command.add_flag("--async-tp", flags.asyncTp,
                   "torchtitan's async TP (symmetric-memory all-gather matmuls)");
}

Expected<memory::ParallelConfig> resolveParallel(const ParallelFlags& flags,
                                                 memory::Profile profile) {
  const bool engine = profile == memory::Profile::Engine;
  memory::ParallelConfig parallel;
  parallel.dp = flags.dp;
  parallel.tp = flags.tp;
  parallel.pp = flags.pp;
  parallel.cp = flags.cp;
  parallel.zero = flags.zero;
  parallel.asyncTp = flags.asyncTp;
  parallel.sequenceParallel = flags.sequenceParallel;
  auto dtype = memory::parseDType(flags.dtype.empty() ? (engine ? "fp32" : "bf16") : flags.dtype);
  if (!dtype) return dtype.error();
  parallel.dtype = *dtype;
  const std::string attention =
      flags.attention.empty() ? (engine ? "eager" : "flash") : flags.attention;
  if (attention != "flash" && attention != "eager") {
    return makeError(ErrorKind::BadInput,
                     "--attention: unknown kind '" + attention + "' (known: flash, eager)");
  }
  if (engine && attention == "flash") {
    return makeError(ErrorKind::BadInput,
                     "--attention: the engine profile has no flash attention; use eager");
  }
  parallel.flashAttention = attention == "flash";
  if (Status valid = memory::validate(parallel); !valid) return valid.error();
  return parallel;
}

std::vector<std::string> modelArguments(const ModelFlags& flags) {
  std::vector<std::string> args{"--model", flags.model};
  const model::ModelOverrides& o = flags.overrides;
  const std::pair<const char*, const std::optional<std::int64_t>*> fields[] = {
      {"--vocab", &o.vocab}, {"--dim", &o.dim},          {"--layers", &o.layers},
      {"--heads", &o.heads}, {"--kv-heads", &o.kvHeads}, {"--ffn", &o.ffn},
      {"--seq", &o.seq},     {"--batch", &o.batch}};
  for (const auto& [flag, value] : fields) {
    if (value->has_value()) args.insert(args.end(), {flag, std::to_string(**value)});
  }
  return args;
}

}  // namespace tb::cli
