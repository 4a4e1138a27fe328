# Writes a gzipped man page from a program's own --help with help2man, so the
# page cannot drift from the program. For a program with subcommands
# (COMMANDS given), every `PROGRAM COMMAND --help` goes into a COMMANDS
# section. gzip -9n: no name or time stamp, so the page is reproducible.
# A cross build passes its CMAKE_CROSSCOMPILING_EMULATOR (qemu-user) as
# EMULATOR, and the program runs under it.
#   cmake -DPROGRAM=<exe> -DNAME=<one line> -DVERSION=<x.y.z> -DOUT=<page.1.gz>
#         [-DCOMMANDS=a;b;c] [-DEMULATOR=<command;args>] -P TrainBenchManPageScript.cmake
find_program(help2man help2man REQUIRED)
find_program(gzip gzip REQUIRED)
get_filename_component(dir "${OUT}" DIRECTORY)
set(run "${PROGRAM}")
if(EMULATOR)
  # help2man takes one executable and names the page after its file name: a
  # wrapper of the same name runs the program under the emulator.
  get_filename_component(name "${PROGRAM}" NAME)
  set(run "${dir}/emulated/${name}")
  set(line "exec")
  foreach(word IN LISTS EMULATOR ITEMS "${PROGRAM}")
    string(APPEND line " '${word}'")
  endforeach()
  file(WRITE "${run}" "#!/bin/sh\n${line} \"$@\"\n")
  file(CHMOD "${run}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
endif()
set(page "${OUT}.tmp")
set(include "${OUT}.h2m")
file(WRITE "${include}" "")
if(COMMANDS)
  file(APPEND "${include}" "[COMMANDS]\n")
  foreach(command IN LISTS COMMANDS)
    execute_process(COMMAND "${run}" ${command} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc TIMEOUT 30)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${run} ${command} --help exited ${rc}")
    endif()
    # roff: a leading dot or quote starts a request; backslashes escape.
    string(REPLACE "\\" "\\e" help "${help}")
    string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" help "${help}")
    file(APPEND "${include}" ".SS ${command}\n.nf\n${help}.fi\n")
  endforeach()
endif()
set(include_option)
if(COMMANDS)
  set(include_option --include=${include})  # help2man refuses an empty one
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
          ${help2man} --no-info --name=${NAME} --version-string=${VERSION}
          ${include_option} --output=${page} ${run}
  RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man on ${run} exited ${rc}")
endif()
execute_process(COMMAND ${gzip} -9nf "${page}" RESULT_VARIABLE rc)
file(RENAME "${page}.gz" "${OUT}")
file(REMOVE "${include}")
