// Layout: "TBCKPT1\n", the header length as 8 little-endian bytes, a JSON
// header {step, seed, model, tensors: [{name, shape, offset}]}, then the data.
// Only little-endian hosts are supported (amd64, arm64), so the bytes are the
// in-memory floats.
#include "training/checkpoint.hpp"

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

#include "tb/runs/model_json.hpp"
#include "tb/common/atomic_file.hpp"

namespace tb::engine {
namespace {

static_assert(std::endian::native == std::endian::little, "checkpoints assume little-endian");

constexpr std::string_view kMagic = "TBCKPT1\n";
constexpr std::size_t kLengthBytes = 8;

Error corrupt(const std::filesystem::path& file, const std::string& why) {
  return makeError(ErrorKind::Parse, "checkpoint " + file.string() + " is unusable: " + why);
}

}  // namespace

Status saveCheckpoint(const std::filesystem::path& file, const Checkpoint& checkpoint) {
  std::vector<at::Tensor> cpu;
  nlohmann::json entries = nlohmann::json::array();
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : checkpoint.tensors) {
    cpu.push_back(tensor.detach().to(at::kCPU, at::kFloat).contiguous());
    entries.push_back({{"name", name}, {"shape", tensor.sizes().vec()}, {"offset", offset}});
    offset += static_cast<std::uint64_t>(cpu.back().nbytes());
  }
  const nlohmann::json header{{"step", checkpoint.step},
                              {"seed", checkpoint.seed},
                              {"model", runs::modelToJson(checkpoint.model)},
                              {"tensors", entries}};
  const std::string headerText = header.dump();
  const std::uint64_t headerLength = headerText.size();

  std::string content(kMagic);
  content.append(reinterpret_cast<const char*>(&headerLength), kLengthBytes);
  content += headerText;
  content.reserve(content.size() + offset);
  for (const auto& tensor : cpu) {
    content.append(static_cast<const char*>(tensor.data_ptr()), tensor.nbytes());
  }
  return writeFileAtomically(file, content);
}

Expected<Checkpoint> loadCheckpoint(const std::filesystem::path& fileOrDirectory) {
  const std::filesystem::path file = std::filesystem::is_directory(fileOrDirectory)
                                         ? fileOrDirectory / "checkpoint.tbck"
                                         : fileOrDirectory;
  auto content = readFile(file);
  if (!content) return content.error();
  const std::string& bytes = *content;
  if (bytes.size() < kMagic.size() + kLengthBytes || bytes.compare(0, kMagic.size(), kMagic) != 0) {
    return corrupt(file, "not a TrainBench checkpoint");
  }
  std::uint64_t headerLength = 0;
  std::memcpy(&headerLength, bytes.data() + kMagic.size(), kLengthBytes);
  const std::size_t dataStart = kMagic.size() + kLengthBytes + headerLength;
  if (headerLength > bytes.size() || dataStart > bytes.size()) return corrupt(file, "truncated");

  Checkpoint checkpoint;
  try {
    const auto header =
        nlohmann::json::parse(bytes.substr(kMagic.size() + kLengthBytes, headerLength));
    checkpoint.step = header.at("step").get<std::int64_t>();
    checkpoint.seed = header.at("seed").get<std::uint64_t>();
    auto model = runs::modelFromJson(header.at("model"));
    if (!model) return corrupt(file, model.error().message);
    checkpoint.model = *model;
    for (const auto& entry : header.at("tensors")) {
      const auto shape = entry.at("shape").get<std::vector<std::int64_t>>();
      const auto offset = entry.at("offset").get<std::uint64_t>();
      at::Tensor tensor = at::empty(shape, at::kFloat);
      const auto length = static_cast<std::uint64_t>(tensor.nbytes());
      if (offset > bytes.size() - dataStart || length > bytes.size() - dataStart - offset) {
        return corrupt(file, "tensor " + entry.at("name").get<std::string>() + " is truncated");
      }
      std::memcpy(tensor.data_ptr(), bytes.data() + dataStart + offset, length);
      checkpoint.tensors.push_back({entry.at("name").get<std::string>(), tensor});
    }
  } catch (const std::exception& error) {  // JSON errors and impossible shapes
    return corrupt(file, error.what());
  }
  return checkpoint;
}

at::Tensor findTensor(const Checkpoint& checkpoint, const std::string& name) {
  for (const auto& entry : checkpoint.tensors) {
    if (entry.name == name) return entry.tensor;
  }
  return {};
}

}  // namespace tb::engine
