# cmake -DCOVKIT_CONFIG=FILE -P covkitCoverageRun.cmake: what a target of
# covkit_add_coverage_report does. Zero the counters (remove every .gcda
# under the paths), run the commands (all of them, even after a failure),
# write the reports and apply the gates (covkit report), then fail when a
# command or a gate failed.
include("${COVKIT_CONFIG}")

foreach(dir IN LISTS COVKIT_PATHS)
  file(GLOB_RECURSE stale "${dir}/*.gcda")
  if(stale)
    file(REMOVE ${stale})
  endif()
endforeach()

set(failed "")
foreach(i RANGE 1 ${COVKIT_COMMAND_COUNT})
  execute_process(COMMAND ${COVKIT_COMMAND_${i}} WORKING_DIRECTORY "${COVKIT_WORKING_DIRECTORY}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(JOIN COVKIT_COMMAND_${i} " " words)
    list(APPEND failed "'${words}' (exit status ${rc})")
  endif()
endforeach()

execute_process(COMMAND ${COVKIT_REPORT} WORKING_DIRECTORY "${COVKIT_WORKING_DIRECTORY}" RESULT_VARIABLE report_rc)
if(failed)
  list(JOIN failed "; " failed)
  message(FATAL_ERROR "covkit: these commands failed: ${failed}")
endif()
if(NOT report_rc EQUAL 0)
  message(FATAL_ERROR "covkit report failed or a coverage gate was not met (exit status ${report_rc})")
endif()
