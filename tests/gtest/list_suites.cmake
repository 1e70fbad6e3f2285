# Run by covkit_gtest_suites (suites.cmake) after a test program is built:
# writes OUT, the CTest commands for each suite PROGRAM lists.
#   cmake -D PROGRAM=... -D OUT=... -D LABELS=... -D TIMEOUT=... -D WORKDIR=... -P list_suites.cmake
execute_process(COMMAND "${PROGRAM}" --gtest_list_tests
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${status}):\n${errors}")
endif()
# A suite's line is its name and a dot, perhaps "  # TypeParam = ..."; its
# tests' lines are indented.
string(REPLACE "\n" ";" lines "${listing}")
set(tests "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.")
    set(suite "${CMAKE_MATCH_1}")
    string(APPEND tests
      "add_test([==[${suite}]==] [==[${PROGRAM}]==] [==[--gtest_filter=${suite}.*]==])\n"
      "set_tests_properties([==[${suite}]==] PROPERTIES LABELS [==[${LABELS}]==] TIMEOUT ${TIMEOUT}"
      " SKIP_RETURN_CODE 77 WORKING_DIRECTORY [==[${WORKDIR}]==])\n")
  endif()
endforeach()
if(tests STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests listed no suite")
endif()
file(WRITE "${OUT}.tmp" "${tests}")
file(RENAME "${OUT}.tmp" "${OUT}")
