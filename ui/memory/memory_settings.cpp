// The keys, their ranges and the name checks (preset, dtype, profile,
// runtime, policy, card: each against what the core parses) are declared in
// studio_settings.h, so a hand-edited or older settings file can never put
// the form in a state it cannot show. The shape defaults to the stored
// preset's, so the preset is read first.
#include "ui/memory/memory_settings.h"

namespace tb::ui {

MemoryPageInputs MemorySettings::load() const {
  MemoryPageInputs in;
  in = withPresetShape(in, keys::kMemoryPreset.get(in.preset));
  in.vocab = keys::kMemoryVocab.get(in.vocab);
  in.dim = keys::kMemoryDim.get(in.dim);
  in.layers = keys::kMemoryLayers.get(in.layers);
  in.heads = keys::kMemoryHeads.get(in.heads);
  in.kvHeads = keys::kMemoryKvHeads.get(in.kvHeads);
  in.ffn = keys::kMemoryFfn.get(in.ffn);
  in.seq = keys::kMemorySeq.get(in.seq);
  in.batch = keys::kMemoryBatch.get(in.batch);
  in.dp = keys::kMemoryDp.get(in.dp);
  in.tp = keys::kMemoryTp.get(in.tp);
  in.pp = keys::kMemoryPp.get(in.pp);
  in.cp = keys::kMemoryCp.get(in.cp);
  in.compile = keys::kMemoryCompile.get(in.compile);
  in.sequenceParallel = keys::kMemorySequenceParallel.get(in.sequenceParallel);
  in.flashAttention = keys::kMemoryFlashAttention.get(in.flashAttention);
  in.zero = keys::kMemoryZero.get(in.zero);
  in.dtype = keys::kMemoryDType.get(in.dtype);
  in.profile = keys::kMemoryProfile.get(in.profile);
  in.runtime = keys::kMemoryRuntime.get(in.runtime);
  in.recompute = keys::kMemoryRecompute.get(in.recompute);
  in.card = keys::kMemoryCard.get(in.card);
  in.customGiB = keys::kMemoryCustomGiB.get(in.customGiB);
  return in;
}

void MemorySettings::save(const MemoryPageInputs& in) const {
  SettingsWriter out(access_);
  keys::kMemoryPreset.set(out, in.preset);
  keys::kMemoryVocab.set(out, in.vocab);
  keys::kMemoryDim.set(out, in.dim);
  keys::kMemoryLayers.set(out, in.layers);
  keys::kMemoryHeads.set(out, in.heads);
  keys::kMemoryKvHeads.set(out, in.kvHeads);
  keys::kMemoryFfn.set(out, in.ffn);
  keys::kMemorySeq.set(out, in.seq);
  keys::kMemoryBatch.set(out, in.batch);
  keys::kMemoryDp.set(out, in.dp);
  keys::kMemoryTp.set(out, in.tp);
  keys::kMemoryPp.set(out, in.pp);
  keys::kMemoryCp.set(out, in.cp);
  keys::kMemoryCompile.set(out, in.compile);
  keys::kMemorySequenceParallel.set(out, in.sequenceParallel);
  keys::kMemoryFlashAttention.set(out, in.flashAttention);
  keys::kMemoryZero.set(out, in.zero);
  keys::kMemoryDType.set(out, in.dtype);
  keys::kMemoryProfile.set(out, in.profile);
  keys::kMemoryRuntime.set(out, in.runtime);
  keys::kMemoryRecompute.set(out, in.recompute);
  keys::kMemoryCard.set(out, in.card);
  keys::kMemoryCustomGiB.set(out, in.customGiB);
}

}  // namespace tb::ui
