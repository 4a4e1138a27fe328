# Compiles a data file into a C++ translation unit, so the CLI carries its
# default catalog and works from any directory with no install step.
#   tb_embed_text(<target> <symbol> <file>)
# defines   std::string_view <symbol>()   in namespace tb::embedded.
function(tb_embed_text target symbol file)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${symbol}.cpp)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
            -P ${PROJECT_SOURCE_DIR}/cmake/TrainBenchEmbedScript.cmake
    DEPENDS ${file} ${PROJECT_SOURCE_DIR}/cmake/TrainBenchEmbedScript.cmake
    COMMENT "Embedding ${file}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  # Each file names its data kData, so a unity build keeps them apart.
  set_source_files_properties(${out} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
