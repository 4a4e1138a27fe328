# Cross-compiles for Debian arm64 (aarch64) on an amd64 Debian 12 host with
# Debian's cross toolchain (g++-aarch64-linux-gnu) against an arm64 root that
# holds the -dev packages (packaging/cross-arm64.sh makes one with
# debootstrap). Programs the build runs (protoc, help2man, gzip, git) are the
# host's; headers, libraries and CMake packages come from the root only.
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#         -DCMAKE_SYSROOT=/path/to/arm64-root ...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's multiarch folder for the target (lib/aarch64-linux-gnu), where
# find_library and find_package look inside the root.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT CMAKE_SYSROOT)
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: set CMAKE_SYSROOT to an arm64 Debian root with the -dev packages "
                      "(packaging/cross-arm64.sh makes one)")
endif()
set(CMAKE_FIND_ROOT_PATH ${CMAKE_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (FindCURL asks it) is the host's, reading only the root's .pc
# files and prefixing the paths they give with the root.
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${CMAKE_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR}
  "${CMAKE_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${CMAKE_SYSROOT}/usr/lib/pkgconfig:${CMAKE_SYSROOT}/usr/share/pkgconfig")
unset(ENV{PKG_CONFIG_PATH})

# The arm64 programs (tests, gtest discovery at build time, help2man's
# --help runs) start under qemu-user with the root's loader and libraries.
# QEMU_LD_PREFIX rather than -L, so that the children a test starts (its
# /bin/sh, python3) get the same root through binfmt_misc's qemu as well.
find_program(TB_QEMU_AARCH64 qemu-aarch64-static qemu-aarch64)
if(TB_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/env QEMU_LD_PREFIX=${CMAKE_SYSROOT} ${TB_QEMU_AARCH64})
endif()

# The Debian package is for the target; CPack would otherwise ask the host's
# dpkg and label it amd64 (packaging/CMakeLists.txt refuses that).
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
