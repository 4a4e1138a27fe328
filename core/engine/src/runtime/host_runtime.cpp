#include "runtime/host_runtime.hpp"

#include <cstdlib>  // any C library header: on glibc it defines __GLIBC__
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "matmul/blas_symbol.hpp"

namespace tb::engine {
namespace {

using SetThreads = void (*)(int);
using GetThreads = int (*)();

/// OpenBLAS built with pthreads has its own pool; built with OpenMP it shares
/// LibTorch's and must not be touched separately (openblas_get_parallel: 1 =
/// pthreads, 2 = OpenMP).
bool hasOwnPool() {
  static const bool own = [] {
    const auto parallel = blasSymbol<GetThreads>("openblas_get_parallel");
    return parallel != nullptr && parallel() == 1 &&
           blasSymbol<SetThreads>("openblas_set_num_threads") != nullptr &&
           blasSymbol<GetThreads>("openblas_get_num_threads") != nullptr;
  }();
  return own;
}

}  // namespace

int blasLibraryThreads() {
  return hasOwnPool() ? blasSymbol<GetThreads>("openblas_get_num_threads")() : 0;
}

bool setBlasLibraryThreads(int threads) {
  if (!hasOwnPool() || threads < 1) return false;
  blasSymbol<SetThreads>("openblas_set_num_threads")(threads);
  return true;
}

void keepFreedHostMemory() {
#if defined(__GLIBC__)
  // 32 MiB is the largest mmap threshold glibc accepts on 64-bit; setting it
  // also stops glibc's dynamic threshold from moving. The trim threshold is
  // a ceiling no step reaches, so the top of the heap is never given back.
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 * 1024 * 1024);
  // Blocks past the threshold (a flat buffer's temporaries: `small`'s are
  // 48 MiB) would still be mapped and unmapped every step, 12,000 fresh
  // pages a step on `small`; with no mmap at all they come from the kept
  // heap too. A worker thread's arena that cannot grow for such a block
  // retries in the main arena, and glibc still maps memory when the heap
  // itself cannot grow, so nothing fails for want of it.
  mallopt(M_MMAP_MAX, 0);
#endif
}

}  // namespace tb::engine
