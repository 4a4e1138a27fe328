// The two host-side settings of the tuned runtime that LibTorch does not
// expose: the size of the BLAS library's own thread pool, and whether glibc
// hands freed memory back to the kernel. Both were measured on `small`
// (docs/PERF.md, "AC2"): two pools of spinning threads on the same cores
// cost 2.6x, and re-faulting the pages of every freed activation cost a
// further 15 %.
#pragma once

namespace tb::engine {

/// The BLAS library's own pool size (OpenBLAS's pthreads), or 0 where the
/// library LibTorch loaded has no separate pool that can be reached: MKL and
/// OpenMP builds of OpenBLAS follow at::set_num_threads instead.
[[nodiscard]] int blasLibraryThreads();

/// Sets that pool's size; false (and nothing changed) where there is none.
bool setBlasLibraryThreads(int threads);

/// Keeps freed host memory in the process for the next allocation of the
/// step instead of unmapping it: allocations up to 32 MiB come from the heap
/// rather than fresh mmaps, and the heap is never trimmed. Process-wide and
/// permanent, as a training process wants; a no-op outside glibc.
void keepFreedHostMemory();

}  // namespace tb::engine
