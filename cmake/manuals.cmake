# Man pages from the manuals in docs/ and shell completions from covkit's own
# command-line definitions, both made at build time so that they never drift
# from what they describe (cmake/install.cmake installs them).
#
#   ${CMAKE_BINARY_DIR}/man/man1/covkit-report.1.gz ...   scripts/md_to_man.py
#   ${CMAKE_BINARY_DIR}/completions/{covkit.bash,_covkit,covkit.fish}   covkit completion SHELL

find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: no man pages (scripts/md_to_man.py makes them)")
endif()
find_program(COVKIT_GZIP gzip)

# manual (docs/NAME.md) -> page name and section.
set(COVKIT_MANUALS
  "covkit.md=covkit.1"
  "covkit-gcov.md=covkit-gcov.1"
  "covkit-report.md=covkit-report.1"
  "covkit-merge.md=covkit-merge.1"
  "covkit-trace.md=covkit-trace.1"
  "covkit-gprof.md=covkit-gprof.1"
  "covkit-live.md=covkit-live.1"
  "covkit-sample.md=covkit-sample.1"
  "covkit-blocks.md=covkit-blocks.1"
  "covkit-doctor.md=covkit-doctor.1"
  "report-formats.md=covkit-report-formats.5"
  "trace-format.md=covkit-trace-format.5"
  "sample-format.md=covkit-sample-format.5"
  "covkit-cmake.md=covkit-cmake.7"
  "covkit-clang.md=covkit-clang.7"
  "command-line.md=covkit-command-line.7")

set(COVKIT_MAN_PAGES "")
if(Python3_Interpreter_FOUND AND COVKIT_GZIP)
  foreach(entry IN LISTS COVKIT_MANUALS)
    string(REPLACE "=" ";" pair "${entry}")
    list(GET pair 0 manual)
    list(GET pair 1 page)
    string(REGEX REPLACE "^(.*)\\.([0-9])$" "\\1" name "${page}")
    string(REGEX REPLACE "^(.*)\\.([0-9])$" "\\2" section "${page}")
    set(source ${CMAKE_CURRENT_SOURCE_DIR}/docs/${manual})
    set(out ${CMAKE_BINARY_DIR}/man/man${section}/${page})
    # gzip -n: no name or time in the header, so the package is reproducible.
    add_custom_command(OUTPUT ${out}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man/man${section}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/md_to_man.py
              --name ${name} --section ${section} --version ${PROJECT_VERSION} ${source} ${out}
      COMMAND ${COVKIT_GZIP} -9nf ${out}
      DEPENDS ${source} ${CMAKE_CURRENT_SOURCE_DIR}/scripts/md_to_man.py
      COMMENT "man page ${page}" VERBATIM)
    list(APPEND COVKIT_MAN_PAGES ${out}.gz)
  endforeach()
  add_custom_target(covkit_man_pages ALL DEPENDS ${COVKIT_MAN_PAGES})
endif()

# The completions, written by the covkit just built: `covkit completion`
# reads every command's option definitions (cli/command_spec), so a new or
# renamed option is completed without touching anything here.
set(COVKIT_COMPLETIONS
  ${CMAKE_BINARY_DIR}/completions/covkit.bash
  ${CMAKE_BINARY_DIR}/completions/_covkit
  ${CMAKE_BINARY_DIR}/completions/covkit.fish)
add_custom_command(OUTPUT ${COVKIT_COMPLETIONS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/completions
  COMMAND ${CMAKE_COMMAND} -DCOVKIT=$<TARGET_FILE:covkit> -DOUT=${CMAKE_BINARY_DIR}/completions
          -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/write_completions.cmake
  DEPENDS covkit ${CMAKE_CURRENT_SOURCE_DIR}/cmake/write_completions.cmake
  COMMENT "shell completions" VERBATIM)
add_custom_target(covkit_completions ALL DEPENDS ${COVKIT_COMPLETIONS})
