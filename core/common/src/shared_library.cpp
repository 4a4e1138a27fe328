#include "tb/common/shared_library.hpp"

#include <dlfcn.h>

namespace tb {

Expected<SharedLibrary> SharedLibrary::open(const std::string& name) {
  ::dlerror();
  void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = ::dlerror();
    const std::string detail = reason != nullptr ? reason : "";
    // A missing file is the common case and says all; anything else (a
    // wrong architecture, a missing dependency) is worth its own words.
    if (detail.empty() || detail.find("No such file") != std::string::npos) {
      return makeError(ErrorKind::Runtime, name + " not found");
    }
    return makeError(ErrorKind::Runtime, name + " cannot be loaded: " + detail);
  }
  return SharedLibrary(handle);
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* SharedLibrary::rawSymbol(const char* name) const {
  return handle_ != nullptr ? ::dlsym(handle_, name) : nullptr;
}

}  // namespace tb
