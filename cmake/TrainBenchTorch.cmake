# Finds the LibTorch the engine builds against: Debian's 1.13 CPU build
# (python3-torch / libtorch-dev, found by find_package's own search), an
# upstream LibTorch 2.x unpacked anywhere (Torch_DIR, or CMAKE_PREFIX_PATH),
# or the one inside a `torch` Python package (pip's wheel carries
# share/cmake/Torch; TB_TORCH_PYTHON names the interpreter to ask, default
# python3). The version differences the sources see live in
# core/engine/src/runtime/torch_compat.hpp and the c10d file; this module
# only finds the library and says which one it found.
#
# Sets Torch_FOUND (and TorchConfig's TORCH_LIBRARIES, TORCH_INCLUDE_DIRS),
# and, for every directory, TB_TORCH_VERSION and TB_TORCH_HAS_CUDA (whether
# this LibTorch was built with CUDA).
# find_package's imported targets are local to a directory, so every
# directory that links torch calls tb_find_torch(); the first call caches
# Torch_DIR and the later ones find the same library without asking Python.
set(TB_TORCH_PYTHON "python3" CACHE STRING
  "Python whose torch package may provide LibTorch (share/cmake/Torch), when Torch_DIR is not set")

macro(tb_find_torch)
  find_package(Torch QUIET)
  # Not when cross-compiling: the host's Python has the host's torch, built
  # for another architecture (the cross build finds the root's LibTorch).
  if(NOT Torch_FOUND AND TB_TORCH_PYTHON AND NOT CMAKE_CROSSCOMPILING)
    execute_process(
      COMMAND ${TB_TORCH_PYTHON} -c "import torch.utils, sys; sys.stdout.write(torch.utils.cmake_prefix_path)"
      OUTPUT_VARIABLE tb_torch_prefix
      ERROR_QUIET
      RESULT_VARIABLE tb_torch_asked
      TIMEOUT 60)
    if(tb_torch_asked EQUAL 0 AND IS_DIRECTORY "${tb_torch_prefix}/Torch")
      set(Torch_DIR "${tb_torch_prefix}/Torch" CACHE PATH "LibTorch's CMake package" FORCE)
      find_package(Torch QUIET)
    endif()
  endif()
  if(Torch_FOUND)
    # An upstream CUDA build lists c10_cuda among its libraries; Debian's does not.
    if(TORCH_LIBRARIES MATCHES "c10_cuda" OR TARGET c10_cuda)
      set(TB_TORCH_HAS_CUDA ON CACHE INTERNAL "LibTorch was built with CUDA")
    else()
      set(TB_TORCH_HAS_CUDA OFF CACHE INTERNAL "LibTorch was built with CUDA")
    endif()
    set(TB_TORCH_VERSION "${Torch_VERSION}" CACHE INTERNAL "The LibTorch found")
    get_property(tb_torch_reported GLOBAL PROPERTY TB_TORCH_REPORTED)
    if(NOT tb_torch_reported)
      set_property(GLOBAL PROPERTY TB_TORCH_REPORTED ON)
      message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR} (CUDA: ${TB_TORCH_HAS_CUDA})")
    endif()
  else()
    set(TB_TORCH_HAS_CUDA OFF CACHE INTERNAL "LibTorch was built with CUDA")
    set(TB_TORCH_VERSION "" CACHE INTERNAL "The LibTorch found")
  endif()
endmacro()
