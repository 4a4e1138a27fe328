// Loaded once and never closed: the communicator's watchdog and a pending
// collective may still call in while the process winds down.
#include "distributed/nccl_library.hpp"

#include <optional>
#include <vector>

#include "tb/common/shared_library.hpp"

namespace tb::engine {
namespace {

struct Loaded {
  std::optional<SharedLibrary> nccl;
  std::optional<SharedLibrary> cudart;
  NcclLibrary api;
  std::string why;  ///< empty when api is complete
};

/// The soname first (LD_LIBRARY_PATH, ld.so.cache), then the build's folder.
Expected<SharedLibrary> openFirst(const std::string& soname, const char* buildFolder) {
  auto library = SharedLibrary::open(soname);
  if (library || buildFolder[0] == '\0') return library;
  auto beside = SharedLibrary::open(std::string(buildFolder) + "/" + soname);
  if (beside) return beside;
  return library.error();
}

Loaded load() {
  Loaded loaded;
  auto nccl = openFirst("libnccl.so.2", TB_NCCL_LIBRARY_DIR);
  if (!nccl) {
    loaded.why = "NCCL is not installed: " + nccl.error().message;
    return loaded;
  }
  // CUDART_VERSION is major * 1000 + minor * 10; the runtime's soname has the major.
  auto cudart =
      openFirst("libcudart.so." + std::to_string(CUDART_VERSION / 1000), TB_CUDART_LIBRARY_DIR);
  if (!cudart) {
    loaded.why = "the CUDA runtime is not installed: " + cudart.error().message;
    return loaded;
  }
  std::vector<std::string> missing;
#define TB_NCCL_RESOLVE(name)                               \
  loaded.api.name = nccl->symbol<decltype(&::name)>(#name); \
  if (loaded.api.name == nullptr) missing.push_back(#name);
  TB_NCCL_FUNCTIONS(TB_NCCL_RESOLVE)
#undef TB_NCCL_RESOLVE
#define TB_CUDART_RESOLVE(name)                               \
  loaded.api.name = cudart->symbol<decltype(&::name)>(#name); \
  if (loaded.api.name == nullptr) missing.push_back(#name);
  TB_CUDART_FUNCTIONS(TB_CUDART_RESOLVE)
#undef TB_CUDART_RESOLVE
  if (!missing.empty()) {
    std::string names;
    for (const std::string& name : missing) names += (names.empty() ? "" : ", ") + name;
    loaded.why = "the installed NCCL or CUDA runtime is too old (it lacks " + names + ")";
    return loaded;
  }
  loaded.nccl = std::move(*nccl);
  loaded.cudart = std::move(*cudart);
  return loaded;
}

}  // namespace

const NcclLibrary* ncclLibrary(std::string* why) {
  static const Loaded loaded = load();
  if (!loaded.why.empty()) {
    if (why != nullptr) *why = loaded.why;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace tb::engine
