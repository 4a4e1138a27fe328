// Model and optimizer state in one file that is written atomically, so a run
// killed while saving still has its previous checkpoint. The format is our own
// (a JSON header naming each tensor, then raw little-endian float32) because
// torch::save's archive layout changed between LibTorch 1.x and 2.x.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "model/decoder.hpp"
#include "tb/common/expected.hpp"
#include "tb/engine/model.hpp"

namespace tb::engine {

/// What a checkpoint holds; tensors are float32 on the CPU.
struct Checkpoint {
  std::int64_t step = 0;  ///< steps completed (also the optimizer's step count)
  std::uint64_t seed = 0;
  ModelConfig model;
  std::vector<NamedTensor> tensors;
};

/// Writes parameters and optimizer state (any device) to `file`.
Status saveCheckpoint(const std::filesystem::path& file, const Checkpoint& checkpoint);

/// Reads a file written by saveCheckpoint; a directory means its checkpoint.tbck.
[[nodiscard]] Expected<Checkpoint> loadCheckpoint(const std::filesystem::path& fileOrDirectory);

/// The tensor called `name`, or an undefined tensor.
[[nodiscard]] at::Tensor findTensor(const Checkpoint& checkpoint, const std::string& name);

}  // namespace tb::engine
