# Compiles through ccache where it is installed (TB_USE_CCACHE, on by default,
# and nothing changes where ccache is absent), so that a rebuild after a
# clean, a branch switch or a second configure of the same tree compiles only
# what changed. A launcher set by the user (CMAKE_CXX_COMPILER_LAUNCHER) wins.
#
# The precompiled headers (TrainBenchPch.cmake) need two things from ccache:
# sloppiness about the macros, timestamps and header times that a
# precompiled header records, and, from clang, a header without its own
# build time inside (-fno-pch-timestamp), so that an identical rebuild of
# one is a cache hit for every source that includes it.
option(TB_USE_CCACHE "Compile through ccache when it is installed" ON)
if(TB_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(TB_CCACHE_PROGRAM ccache)
  if(TB_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${TB_CCACHE_PROGRAM})
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      add_compile_options("SHELL:-Xclang -fno-pch-timestamp")
    endif()
    message(STATUS "Compiling through ${TB_CCACHE_PROGRAM}")
  endif()
endif()
