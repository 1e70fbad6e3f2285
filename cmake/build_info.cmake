# Run at every build (cmake -P): writes covkit's build information (the
# commit it was built from) into OUT, touching the file only when it
# changed, so that an unchanged tree rebuilds nothing. The version itself is
# project(VERSION) in CMakeLists.txt and reaches the code at configure time.
#   cmake -DSOURCE_DIR=... -DOUT=... -DTEMPLATE=... -P build_info.cmake
set(COVKIT_COMMIT "unknown")
find_program(_git git)
if(_git AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND ${_git} -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE _head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0 AND _head)
    set(COVKIT_COMMIT "${_head}")
    # Uncommitted changes to tracked files: the binary is not that commit.
    execute_process(COMMAND ${_git} -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE _changes RESULT_VARIABLE _rc ERROR_QUIET)
    if(_rc EQUAL 0 AND NOT _changes STREQUAL "")
      string(APPEND COVKIT_COMMIT "-modified")
    endif()
  endif()
endif()
configure_file("${TEMPLATE}" "${OUT}" @ONLY)
