// A library opened at run time (dlopen), for the ones TrainBench uses where
// they are installed and must not need where they are not: NVML (a machine
// with no NVIDIA driver) and NCCL with the CUDA runtime (a package built with
// the NCCL communicator, installed on a desktop with no CUDA toolkit).
#pragma once

#include <string>
#include <utility>

#include "tb/common/expected.hpp"

namespace tb {

class SharedLibrary {
 public:
  /// dlopen(name, RTLD_NOW | RTLD_LOCAL). The error (Runtime) reads
  /// "NAME not found" or "NAME cannot be loaded: WHY".
  [[nodiscard]] static Expected<SharedLibrary> open(const std::string& name);

  SharedLibrary(SharedLibrary&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  SharedLibrary& operator=(SharedLibrary&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  /// The symbol as a function pointer of type `Function`; nullptr if absent.
  template <class Function>
  [[nodiscard]] Function symbol(const char* name) const {
    return reinterpret_cast<Function>(rawSymbol(name));
  }

 private:
  explicit SharedLibrary(void* handle) : handle_(handle) {}
  [[nodiscard]] void* rawSymbol(const char* name) const;

  void* handle_;
};

}  // namespace tb
