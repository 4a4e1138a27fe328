// Tensors exchanged with the Python reference of the parity test. A bundle is
// NAME.json (a config object and a table: name, dtype, shape, byte offset) plus
// NAME.bin (raw native-endian bytes): both sides read it with nothing but a
// JSON parser, unlike torch::save's archive, whose layout differs between
// LibTorch and Python releases. The .json is written last, so a bundle whose
// .json exists is complete.
#pragma once

#include <ATen/ATen.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/decoder.hpp"
#include "tb/common/expected.hpp"

namespace tb::engine::testing {

/// Named float32 or int64 tensors with a free-form config object.
struct TensorBundle {
  nlohmann::json config = nlohmann::json::object();
  std::vector<NamedTensor> tensors;

  /// The tensor called `name`, or an undefined tensor.
  [[nodiscard]] at::Tensor find(const std::string& name) const;
};

/// Writes DIR/STEM.bin then DIR/STEM.json, each atomically.
[[nodiscard]] Status writeBundle(const std::filesystem::path& directory, const std::string& stem,
                                 const TensorBundle& bundle);

/// Reads a bundle; the error names the file and the entry that is wrong.
[[nodiscard]] Expected<TensorBundle> readBundle(const std::filesystem::path& directory,
                                                const std::string& stem);

}  // namespace tb::engine::testing
