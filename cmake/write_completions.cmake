# cmake -DCOVKIT=path/to/covkit -DOUT=dir -P write_completions.cmake: the
# three completion scripts, each from `covkit completion SHELL`.
# A sanitized build's covkit writes them too: a leak report there would fail
# the build rather than a test (the sanitized tests check covkit's leaks).
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
foreach(pair "bash;covkit.bash" "zsh;_covkit" "fish;covkit.fish")
  list(GET pair 0 shell)
  list(GET pair 1 file)
  execute_process(COMMAND "${COVKIT}" completion ${shell} OUTPUT_FILE "${OUT}/${file}.new" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "covkit completion ${shell} failed: ${rc}")
  endif()
  file(RENAME "${OUT}/${file}.new" "${OUT}/${file}")
endforeach()
