# The functions of find_package(covkit) (covkitConfig.cmake includes this).
# docs/covkit-cmake.md is their manual.
include_guard(GLOBAL)

set(_COVKIT_FUNCTIONS_DIR "${CMAKE_CURRENT_LIST_DIR}")

# Coverage instrumentation for the compilers covkit reads: GCC's --coverage
# (.gcno/.gcda), and clang's --coverage, which writes the same kind of files
# (covkit reads them as llvm-cov gcov does).
function(_covkit_check_compilers who)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  foreach(lang IN LISTS languages)
    if(lang MATCHES "^(C|CXX)$" AND NOT CMAKE_${lang}_COMPILER_ID MATCHES "^(GNU|Clang|AppleClang)$")
      message(FATAL_ERROR "${who}: the ${lang} compiler is ${CMAKE_${lang}_COMPILER_ID}; covkit reads GCC's "
                          "and clang's --coverage files only")
    endif()
  endforeach()
endfunction()

# How a target's instrumentation reaches the link: an executable or a
# shared library links with it; a static, object or interface library passes
# it on to what links it.
function(_covkit_scope target out)
  get_target_property(type ${target} TYPE)
  if(type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY)$")
    set(${out} PUBLIC PARENT_SCOPE)
  elseif(type STREQUAL "INTERFACE_LIBRARY")
    set(${out} INTERFACE PARENT_SCOPE)
  else()
    set(${out} PRIVATE PARENT_SCOPE)
  endif()
endfunction()

# covkit_enable_coverage(TARGET... [ATOMIC])
#   Compiles TARGETs' C and C++ with --coverage (GCC or clang) and links
#   with it. ATOMIC (GCC): -fprofile-update=atomic, exact counts in threads
#   that run the same code at once.
function(covkit_enable_coverage)
  cmake_parse_arguments(PARSE_ARGV 0 arg "ATOMIC" "" "")
  _covkit_check_compilers(covkit_enable_coverage)
  foreach(target IN LISTS arg_UNPARSED_ARGUMENTS)
    if(NOT TARGET ${target})
      message(FATAL_ERROR "covkit_enable_coverage: no target ${target}")
    endif()
    _covkit_scope(${target} scope)
    set(compile_scope ${scope})
    if(scope STREQUAL "PUBLIC")
      set(compile_scope PRIVATE)
    endif()
    target_compile_options(${target} ${compile_scope} $<$<COMPILE_LANGUAGE:C,CXX>:--coverage>)
    if(arg_ATOMIC)
      target_compile_options(${target} ${compile_scope} $<$<COMPILE_LANG_AND_ID:C,GNU>:-fprofile-update=atomic>
                             $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-fprofile-update=atomic>)
    endif()
    target_link_options(${target} ${scope} --coverage)
  endforeach()
endfunction()

# covkit_enable_tracing(TARGET... [PG] [STATIC])
#   Instruments TARGETs' functions for `covkit trace record`:
#   -finstrument-functions (GCC, clang), or with PG -pg (GCC, x86-64; also
#   what gprof needs). STATIC links covkit's tracing runtime into the
#   executables (libcovkit-trace.a), for `covkit trace record --static`
#   (static programs, or where LD_PRELOAD is not wanted).
function(covkit_enable_tracing)
  cmake_parse_arguments(PARSE_ARGV 0 arg "PG;STATIC" "" "")
  _covkit_check_compilers(covkit_enable_tracing)
  if(arg_PG AND NOT CMAKE_C_COMPILER_ID STREQUAL "GNU" AND NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "covkit_enable_tracing: PG (-pg) needs GCC")
  endif()
  if(arg_STATIC AND NOT TARGET covkit::trace_runtime)
    message(FATAL_ERROR "covkit_enable_tracing: STATIC needs covkit's libcovkit-trace.a, not installed here")
  endif()
  foreach(target IN LISTS arg_UNPARSED_ARGUMENTS)
    if(NOT TARGET ${target})
      message(FATAL_ERROR "covkit_enable_tracing: no target ${target}")
    endif()
    _covkit_scope(${target} scope)
    set(compile_scope ${scope})
    if(scope STREQUAL "PUBLIC")
      set(compile_scope PRIVATE)
    endif()
    if(arg_PG)
      target_compile_options(${target} ${compile_scope} $<$<COMPILE_LANGUAGE:C,CXX>:-pg>)
      target_link_options(${target} ${scope} -pg)
    else()
      target_compile_options(${target} ${compile_scope} $<$<COMPILE_LANGUAGE:C,CXX>:-finstrument-functions>)
    endif()
    # Names and lines in the reports; frame pointers for the call chains.
    target_compile_options(${target} ${compile_scope} $<$<COMPILE_LANGUAGE:C,CXX>:-g>)
    get_target_property(type ${target} TYPE)
    if(arg_STATIC AND type STREQUAL "EXECUTABLE")
      # The whole archive: the hooks are called, never referenced by name.
      target_link_libraries(${target} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,covkit::trace_runtime>")
    endif()
  endforeach()
endfunction()

# covkit_add_coverage_report(NAME
#     [DEPENDS target...]          built before the run
#     [COMMAND cmd arg... [COMMAND ...]]  what to run [default: ctest in this build tree]
#     [WORKING_DIRECTORY dir]      where the commands run [default: the build tree]
#     [HTML dir] [LCOV file] [COBERTURA file] [SONARQUBE file] [COVERALLS file] [JSON file] [SUMMARY file]
#     [FAIL_UNDER_LINE n] [FAIL_UNDER_BRANCH n] [FAIL_UNDER_FUNCTION n]
#     [FILTER regex...] [EXCLUDE regex...]
#     [ROOT dir]                   the project's sources [default: CMAKE_SOURCE_DIR]
#     [PATHS dir...])              where the .gcno/.gcda are [default: the build tree]
# A target NAME that zeroes the counters (every .gcda under PATHS), runs the
# commands, then writes the reports with `covkit report` and applies its
# gates: the target fails when a command failed or a gate is not met (the
# reports are written either way).
function(covkit_add_coverage_report name)
  cmake_parse_arguments(PARSE_ARGV 1 arg ""
    "WORKING_DIRECTORY;HTML;LCOV;COBERTURA;SONARQUBE;COVERALLS;JSON;SUMMARY;FAIL_UNDER_LINE;FAIL_UNDER_BRANCH;FAIL_UNDER_FUNCTION;ROOT"
    "DEPENDS;FILTER;EXCLUDE;PATHS")
  # COMMAND may repeat: split the rest into commands by hand.
  set(commands "")
  set(current "")
  set(in_command FALSE)
  set(keywords DEPENDS FILTER EXCLUDE PATHS WORKING_DIRECTORY HTML LCOV COBERTURA SONARQUBE COVERALLS JSON SUMMARY
               FAIL_UNDER_LINE FAIL_UNDER_BRANCH FAIL_UNDER_FUNCTION ROOT)
  set(command_count 0)
  foreach(word IN LISTS ARGN)
    if(word STREQUAL "COMMAND")
      if(in_command)
        math(EXPR command_count "${command_count} + 1")
        set(_covkit_command_${command_count} "${current}")
      endif()
      set(current "")
      set(in_command TRUE)
    elseif(word IN_LIST keywords)
      if(in_command)
        math(EXPR command_count "${command_count} + 1")
        set(_covkit_command_${command_count} "${current}")
      endif()
      set(in_command FALSE)
    elseif(in_command)
      list(APPEND current "${word}")
    endif()
  endforeach()
  if(in_command)
    math(EXPR command_count "${command_count} + 1")
    set(_covkit_command_${command_count} "${current}")
  endif()
  if(command_count EQUAL 0)
    set(command_count 1)
    set(_covkit_command_1 "${CMAKE_CTEST_COMMAND};--output-on-failure;--test-dir;${CMAKE_BINARY_DIR}")
  endif()
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${CMAKE_BINARY_DIR}")
  endif()
  if(NOT arg_ROOT)
    set(arg_ROOT "${CMAKE_SOURCE_DIR}")
  endif()
  if(NOT arg_PATHS)
    set(arg_PATHS "${CMAKE_BINARY_DIR}")
  endif()

  # covkit report's command line.
  # The summary table on the console too, whatever files are written.
  set(report "$<TARGET_FILE:covkit::covkit>" report --print-summary --root "${arg_ROOT}")
  foreach(pair HTML:--html LCOV:--lcov COBERTURA:--cobertura SONARQUBE:--sonarqube COVERALLS:--coveralls JSON:--json
               SUMMARY:--markdown
               FAIL_UNDER_LINE:--fail-under-line FAIL_UNDER_BRANCH:--fail-under-branch
               FAIL_UNDER_FUNCTION:--fail-under-function)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 key)
    list(GET pair 1 option)
    if(DEFINED arg_${key})
      list(APPEND report "${option}" "${arg_${key}}")
    endif()
  endforeach()
  foreach(regex IN LISTS arg_FILTER)
    list(APPEND report --filter "${regex}")
  endforeach()
  foreach(regex IN LISTS arg_EXCLUDE)
    list(APPEND report --exclude "${regex}")
  endforeach()
  list(APPEND report ${arg_PATHS})

  # What the run script reads: written with generator expressions expanded.
  set(content "set(COVKIT_PATHS [==[${arg_PATHS}]==])\n")
  string(APPEND content "set(COVKIT_WORKING_DIRECTORY [==[${arg_WORKING_DIRECTORY}]==])\n")
  string(APPEND content "set(COVKIT_COMMAND_COUNT ${command_count})\n")
  foreach(i RANGE 1 ${command_count})
    string(APPEND content "set(COVKIT_COMMAND_${i} [==[${_covkit_command_${i}}]==])\n")
  endforeach()
  string(APPEND content "set(COVKIT_REPORT [==[${report}]==])\n")
  set(config "${CMAKE_CURRENT_BINARY_DIR}/covkit-${name}$<$<BOOL:$<CONFIG>>:-$<CONFIG>>.cmake")
  file(GENERATE OUTPUT "${config}" CONTENT "${content}")
  add_custom_target(${name}
    COMMAND "${CMAKE_COMMAND}" -DCOVKIT_CONFIG=${config} -P "${_COVKIT_FUNCTIONS_DIR}/covkitCoverageRun.cmake"
    WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}"
    COMMENT "covkit: coverage report ${name}"
    VERBATIM USES_TERMINAL)
  if(arg_DEPENDS)
    add_dependencies(${name} ${arg_DEPENDS})
  endif()
endfunction()
