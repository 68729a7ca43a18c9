# ctest helper: run EXE with ARGS (a ;-list) and require exit code EXPECT (or one of "a|b") and exactly one
# non-empty line on stderr (the project's rule for bad input: one clear line, no spew).
# LAUNCHER (optional) is the command the executable is started through (the grader's sandbox).
execute_process(COMMAND ${LAUNCHER} ${EXE} ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
string(STRIP "${err}" err_stripped)
string(REGEX MATCHALL "\n" newlines "${err_stripped}")
list(LENGTH newlines n_newlines)
if(ALLOW_NO_DEVICE AND rc STREQUAL "77")
  # ctest matches this word with SKIP_REGULAR_EXPRESSION and reports the test as skipped.
  message(STATUS "CUDALAB_SKIPPED: no usable CUDA device (${err})")
  return()
endif()
# EXPECT may name alternatives, "0|3": an outcome that depends on the GPU (hello's host_pointer).
if(NOT rc MATCHES "^(${EXPECT})$")
  message(FATAL_ERROR "expected exit ${EXPECT}, got '${rc}' for: ${EXE} ${ARGS}\nstderr: ${err}")
endif()
if(err_stripped STREQUAL "" OR NOT n_newlines EQUAL 0)
  message(FATAL_ERROR "expected exactly one line on stderr for: ${EXE} ${ARGS}\nstderr was:\n${err}")
endif()
message(STATUS "exit ${rc}, stderr: ${err_stripped}")
