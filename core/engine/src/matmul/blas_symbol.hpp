// OpenBLAS's own entry points (its thread pool, its kernel family) are looked
// up at run time rather than linked: the engine links LibTorch, not a BLAS,
// and must build against LibTorch packages that bring MKL or no BLAS of their
// own (upstream CUDA builds). Where the symbol is missing, the BLAS is not
// OpenBLAS and the caller leaves it alone.
#pragma once

#include <dlfcn.h>

namespace tb::engine {

/// The function `symbol` in the process's global scope, where LibTorch's own
/// BLAS dependency sits; nullptr when nothing loaded defines it.
template <typename Function>
Function blasSymbol(const char* symbol) {
  return reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, symbol));
}

}  // namespace tb::engine
