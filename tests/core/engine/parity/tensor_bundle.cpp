// Bundle I/O for the parity test. Only float32 and int64 travel: the engine's
// master weights, activations and gradients are float32 and tokens are int64.
#include "parity/tensor_bundle.hpp"

#include <cstring>

#include "tb/common/atomic_file.hpp"

namespace tb::engine::testing {
namespace {

const char* dtypeName(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return "float32";
    case at::kLong: return "int64";
    default: return nullptr;
  }
}

Error bad(const std::string& message) { return makeError(ErrorKind::BadInput, message); }

}  // namespace

at::Tensor TensorBundle::find(const std::string& name) const {
  for (const auto& entry : tensors) {
    if (entry.name == name) return entry.tensor;
  }
  return {};
}

Status writeBundle(const std::filesystem::path& directory, const std::string& stem,
                   const TensorBundle& bundle) {
  std::string blob;
  nlohmann::json table = nlohmann::json::array();
  for (const auto& entry : bundle.tensors) {
    const at::Tensor tensor = entry.tensor.detach().cpu().contiguous();
    const char* dtype = dtypeName(tensor.scalar_type());
    if (dtype == nullptr) {
      return bad("tensor " + entry.name + " has dtype " +
                 std::string(c10::toString(tensor.scalar_type())) +
                 "; a bundle holds float32 and int64 only");
    }
    table.push_back({{"name", entry.name},
                     {"dtype", dtype},
                     {"shape", tensor.sizes().vec()},
                     {"offset", blob.size()}});
    blob.append(static_cast<const char*>(tensor.data_ptr()), tensor.nbytes());
  }
  if (Status written = writeFileAtomically(directory / (stem + ".bin"), blob); !written) {
    return written;
  }
  const nlohmann::json manifest = {{"config", bundle.config}, {"tensors", table}};
  return writeFileAtomically(directory / (stem + ".json"), manifest.dump(1));
}

Expected<TensorBundle> readBundle(const std::filesystem::path& directory, const std::string& stem) {
  const auto manifestPath = directory / (stem + ".json");
  auto manifestText = readFile(manifestPath);
  if (!manifestText) return manifestText.error();
  auto blob = readFile(directory / (stem + ".bin"));
  if (!blob) return blob.error();
  TensorBundle bundle;
  try {
    const auto manifest = nlohmann::json::parse(*manifestText);
    bundle.config = manifest.value("config", nlohmann::json::object());
    for (const auto& entry : manifest.at("tensors")) {
      const auto name = entry.at("name").get<std::string>();
      const auto dtype = entry.at("dtype").get<std::string>();
      if (dtype != "float32" && dtype != "int64") {
        return bad(manifestPath.string() + ": tensor " + name + " has unknown dtype " + dtype);
      }
      const auto shape = entry.at("shape").get<std::vector<std::int64_t>>();
      const auto offset = entry.at("offset").get<std::size_t>();
      at::Tensor tensor = at::empty(shape, dtype == "float32" ? at::kFloat : at::kLong);
      if (offset > blob->size() || tensor.nbytes() > blob->size() - offset) {
        return bad(manifestPath.string() + ": tensor " + name + " runs past the end of " + stem +
                   ".bin (" + std::to_string(blob->size()) + " bytes)");
      }
      std::memcpy(tensor.data_ptr(), blob->data() + offset, tensor.nbytes());
      bundle.tensors.push_back({name, tensor});
    }
  } catch (const nlohmann::json::exception& error) {
    return bad(manifestPath.string() + " is not a tensor bundle: " + error.what());
  }
  return bundle;
}

}  // namespace tb::engine::testing
