# cmake -DCOVKIT=path/to/covkit -DOUT=dir -P write_completions.cmake: the
# three completion scripts, each from `covkit completion SHELL`.
foreach(pair "bash;covkit.bash" "zsh;_covkit" "fish;covkit.fish")
  list(GET pair 0 shell)
  list(GET pair 1 file)
  execute_process(COMMAND "${COVKIT}" completion ${shell} OUTPUT_FILE "${OUT}/${file}.new" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "covkit completion ${shell} failed: ${rc}")
  endif()
  file(RENAME "${OUT}/${file}.new" "${OUT}/${file}")
endforeach()
