# tb_discover_qt_tests(<target> ENVIRONMENT <env list> [TIMEOUT s] [LABELS l...])
#
# The Qt Test counterpart of gtest_discover_tests: after each build the
# executable is asked for its test functions (`-functions`) and every function
# becomes its own ctest entry, run as `<exe> <function>`. CTest then lists each
# GUI test by name, as it does for the GoogleTest suites.
function(tb_discover_qt_tests target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "ENVIRONMENT;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_qtests.cmake")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_qtests_include.cmake")
  string(REPLACE ";" "\\;" escaped_env "${ARG_ENVIRONMENT}")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
      -DEXE=$<TARGET_FILE:${target}>
      -DNAME=${target}
      -DOUT=${list_file}
      "-DENVIRONMENT=${escaped_env}"
      -DTIMEOUT=${ARG_TIMEOUT}
      "-DLABELS=${ARG_LABELS}"
      -P ${PROJECT_SOURCE_DIR}/cmake/TrainBenchQtTestList.cmake
    BYPRODUCTS ${list_file}
    VERBATIM)
  file(WRITE ${include_file}
    "if(EXISTS \"${list_file}\")\n"
    "  include(\"${list_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
