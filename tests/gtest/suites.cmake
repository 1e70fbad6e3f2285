# covkit_gtest_suites(TARGET [LABELS l...] [TIMEOUT s]): one CTest test per
# GoogleTest suite of TARGET, named after the suite and running
# `TARGET --gtest_filter=Suite.*`, instead of gtest_discover_tests' one per
# test. Each test is a process, and a sanitized test program takes 0.07 s
# (clang) to 0.2 s (GCC) to start and leak-check: 780 of them cost one to
# two and a half minutes of CI's core time, 143 suites a fraction. TARGET
# must link covkit_gtest_main (a skipped test makes its suite exit 77:
# "Skipped").
#
# The list is taken from the program after each build (--gtest_list_tests),
# as gtest_discover_tests does, and read by ctest through an include file.
set(_covkit_gtest_list_script ${CMAKE_CURRENT_LIST_DIR}/list_suites.cmake)

function(covkit_gtest_suites target)
  cmake_parse_arguments(arg "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 600)
  endif()
  set(tests_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_include.cmake)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D "PROGRAM=$<TARGET_FILE:${target}>" -D "OUT=${tests_file}"
            -D "LABELS=${arg_LABELS}" -D "TIMEOUT=${arg_TIMEOUT}"
            -D "WORKDIR=${CMAKE_CURRENT_BINARY_DIR}" -P ${_covkit_gtest_list_script}
    BYPRODUCTS ${tests_file}
    VERBATIM)
  # Before the first build there is no list: a placeholder test says so.
  file(WRITE ${include_file}
    "if(EXISTS \"${tests_file}\")\n"
    "  include(\"${tests_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()
