#include "tb/engine/library_versions.hpp"

#include <sstream>
#include <string>

#include "distributed/nccl_communicator.hpp"
#include "matmul/blas_symbol.hpp"
#include "matmul/matmul_path.hpp"
#include "runtime/torch_compat.hpp"
#include "tb/engine/blas_kernels.hpp"

namespace tb::engine {
namespace {

/// "OpenBLAS 0.3.21, kernel Haswell": openblas_get_config() starts with the
/// name and version; the kernel is the one in use (OPENBLAS_CORETYPE or the
/// library's own detection). Another BLAS has neither symbol.
std::string blasVersion() {
  using Config = char* (*)();
  const auto config = blasSymbol<Config>("openblas_get_config");
  const char* text = config != nullptr ? config() : nullptr;
  if (text == nullptr) return "not OpenBLAS (no openblas_get_config)";
  std::istringstream words{std::string(text)};
  std::string name;
  std::string version;
  words >> name >> version;
  std::string out = name + " " + version;
  if (const std::string core = blasCoreName(); !core.empty()) out += ", kernel " + core;
  return out;
}

}  // namespace

std::vector<ComponentVersion> engineLibraryVersions() {
  std::vector<ComponentVersion> versions{{"LibTorch", compat::kTorchVersion}};
  const std::string dnnl = oneDnnVersion();
  versions.push_back({"oneDNN", dnnl.empty() ? "not built (matrix products on ATen)" : dnnl});
  versions.push_back({"BLAS", blasVersion()});
  versions.push_back({"NCCL", ncclBuilt() ? ncclVersion() : "not built (TB_WITH_NCCL=OFF)"});
  return versions;
}

}  // namespace tb::engine
