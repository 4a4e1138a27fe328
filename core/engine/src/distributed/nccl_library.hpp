// NCCL and the CUDA runtime, opened at run time. A build with the NCCL
// communicator (TB_WITH_NCCL) compiles against the toolkit's nccl.h and
// cuda_runtime.h but links neither library: the same binary, and the Debian
// package made from it, starts on a desktop with no CUDA toolkit (where
// data parallelism on --device cuda then says NCCL is not installed) and
// uses NCCL where it is. Only compiled with TB_HAVE_NCCL.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

namespace tb::engine {

// The functions called, each as a pointer of its declared type.
// Kept as written: clang-format breaks X-macro lists into ragged lines.
// clang-format off
#define TB_NCCL_FUNCTIONS(X)                                                                    \
  X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRankConfig) X(ncclCommGetAsyncError)       \
  X(ncclCommAbort) X(ncclGetErrorString) X(ncclGetLastError) X(ncclAllReduce) X(ncclBroadcast) \
  X(ncclAllGather)
#define TB_CUDART_FUNCTIONS(X)                                                                  \
  X(cudaGetErrorName) X(cudaGetErrorString) X(cudaGetDeviceCount) X(cudaSetDevice)              \
  X(cudaStreamCreateWithFlags) X(cudaStreamDestroy) X(cudaStreamWaitEvent)                      \
  X(cudaEventCreateWithFlags) X(cudaEventRecord) X(cudaEventQuery) X(cudaEventDestroy)
// clang-format on

struct NcclLibrary {
#define TB_NCCL_POINTER(name) decltype(&::name) name = nullptr;
  TB_NCCL_FUNCTIONS(TB_NCCL_POINTER)
  TB_CUDART_FUNCTIONS(TB_NCCL_POINTER)
#undef TB_NCCL_POINTER
};

/// Opens libnccl.so.2 and the CUDA runtime of the toolkit built against
/// (libcudart.so.MAJOR), from the loader's path and then from the folders
/// the build found them in, once per process; they stay open. nullptr when
/// either is missing or lacks a function, with `why` naming which.
[[nodiscard]] const NcclLibrary* ncclLibrary(std::string* why = nullptr);

}  // namespace tb::engine
