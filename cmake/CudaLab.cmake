# cudalab_add_lab(): every lab is added with one call, so every lab has the same shape.
#
#   cudalab_add_lab(rgba_split
#     KERNELS   rgba_split.cu            # kernels + host launchers -> library rgba_split_kernels
#     MAIN      main.cu                  # the executable -> <build>/labs/rgba_split
#     CPU_TESTS rgba_split_cpu_test.cpp  # in tests/rgba_split/, labels: cpu;rgba_split
#     GPU_TESTS rgba_split_gpu_test.cu   # in tests/rgba_split/, labels: gpu;rgba_split
#     SMOKE_ARGS 76 62                   # a small real run with --json: exit 0 and a report that validates
#                                        # (scripts/report_schema.py), or 77 = skipped without a GPU
#     BAD_ARGS  "0 0" "abc" "--nope"     # each string is one bad invocation that must exit 2
#     GPU_BAD_ARGS "--device 99"         # bad only on a machine with a GPU (else: skipped, 77)
#     MIN_ARGS  "1 1"                    # runs at the smallest value of each size option: each must
#                                        # exit 0 with a report that validates, like SMOKE_ARGS
#     SANITIZE_ARGS 77 61 --warmup 0 --repeat 1 --no-l2-flush)
#                                        # the small run compute-sanitizer checks (label sanitize);
#                                        # --no-l2-flush keeps the tools on the lab's own kernels
#                                        # (the flush is common/'s, checked by common_gpu_test) and
#                                        # off a 2 x L2 read per timed launch; --warmup 0
#                                        # --repeat 1: the tools' cost grows with the launches
#                                        # (racecheck above all), the code they check does not
#
# The kernel library is what the tests link, so GoogleTest calls exactly the code the
# executable runs. Smoke tests also check `--help` (exit 0).
# Every test has a TIMEOUT by its labels (the CUDALAB_TIMEOUT_* cache variables), and every test
# process starts through CUDALAB_TEST_LAUNCHER when it is set: the grader sets it to a script that
# runs each test in a sandbox of its own (scripts/cudalab/labgrade/sandbox.py).
set(CUDALAB_TIMEOUT_CPU 60 CACHE STRING "Seconds a CPU test may run (ctest TIMEOUT)")
set(CUDALAB_TIMEOUT_GPU 120 CACHE STRING "Seconds a GPU test may run (ctest TIMEOUT)")
set(CUDALAB_TIMEOUT_SANITIZE 300 CACHE STRING "Seconds a compute-sanitizer test may run (ctest TIMEOUT)")
# The suite's script tests (labels scripts, grading) start builds and many processes: a few seconds
# alone, but ten times that on a 2-core machine whose cores the compilers and the other tests share.
set(CUDALAB_TIMEOUT_SCRIPT 600 CACHE STRING "Seconds a test of the suite's scripts may run (ctest TIMEOUT)")
option(CUDALAB_GTEST_BATCH "One ctest test per GoogleTest binary (scripts/gtest_batch.py: one process, a limit per case, a JUnit report per binary in <build>/gtest-batch/) instead of one per case" ON)
set(CUDALAB_TEST_LAUNCHER "" CACHE STRING "Command every test process is started through (the grader's sandbox)")
# GPU test processes run with CUDA_DEVICE_MAX_CONNECTIONS set to this (0: the driver's default, 8).
# Context creation is close to serial across the processes of one GPU, and each hardware work
# queue of a context costs part of it: on the H200, 16 processes started together took 2.5 s
# each on average to create their contexts with 8 queues, 0.9 s with 1
# (docs/reports/grade-bench-h200-maxconn.txt). The tests check results, not concurrency
# between streams (with one queue, work on different streams may wait for each other, which
# only the labs' own timed runs would see; they are not run through ctest's environment). A test
# that needs streams to run side by side has the label "streams" and keeps the driver's default.
set(CUDALAB_TEST_MAX_CONNECTIONS 1 CACHE STRING "CUDA_DEVICE_MAX_CONNECTIONS of every GPU test process (0: the driver's default)")
if(NOT CUDALAB_TEST_MAX_CONNECTIONS MATCHES "^[0-9]+$" OR CUDALAB_TEST_MAX_CONNECTIONS GREATER 32)
  message(FATAL_ERROR "CUDALAB_TEST_MAX_CONNECTIONS must be 0 (the driver's default) or 1 to 32, not '${CUDALAB_TEST_MAX_CONNECTIONS}'")
endif()
if(CUDALAB_TEST_MAX_CONNECTIONS GREATER 0)
  set(CUDALAB_GPU_TEST_ENV "CUDA_DEVICE_MAX_CONNECTIONS=${CUDALAB_TEST_MAX_CONNECTIONS}")
else()
  set(CUDALAB_GPU_TEST_ENV "")
endif()
# How a GPU test process waits for its GPU (CUDALAB_SYNC, read by common/device_facts.cpp).
# "blocking": the waiting thread sleeps. The driver's default spins on a core while a process has
# fewer contexts than the machine has cores, so under ctest -j a GPU test that waits for the
# shared GPU holds a core the builds of the grading tests beside it could use (on the H200 the
# whole suite took 51.9 s asleep and 56.3 s spinning, one run each: within what one run to the
# next varies; docs/reports/ctest-sync-h200.txt). "spin": the driver's default. Tests check
# results, never time, so waking a few microseconds later changes nothing they assert.
set(CUDALAB_TEST_SYNC "blocking" CACHE STRING "How a GPU test process waits for its GPU: blocking (sleeps) or spin (the driver's default)")
set_property(CACHE CUDALAB_TEST_SYNC PROPERTY STRINGS blocking spin)
if(NOT CUDALAB_TEST_SYNC MATCHES "^(blocking|spin)$")
  message(FATAL_ERROR "CUDALAB_TEST_SYNC must be blocking or spin, not '${CUDALAB_TEST_SYNC}'")
endif()
if(CUDALAB_TEST_SYNC STREQUAL "blocking")
  list(APPEND CUDALAB_GPU_TEST_ENV "CUDALAB_SYNC=blocking")
endif()

# The TIMEOUT for a test with these labels.
function(cudalab_timeout_for labels out_var)
  if("sanitize" IN_LIST labels)
    set(${out_var} ${CUDALAB_TIMEOUT_SANITIZE} PARENT_SCOPE)
  elseif("gpu" IN_LIST labels)
    set(${out_var} ${CUDALAB_TIMEOUT_GPU} PARENT_SCOPE)
  elseif("scripts" IN_LIST labels OR "grading" IN_LIST labels)
    set(${out_var} ${CUDALAB_TIMEOUT_SCRIPT} PARENT_SCOPE)
  else()
    set(${out_var} ${CUDALAB_TIMEOUT_CPU} PARENT_SCOPE)
  endif()
endfunction()

# A test's LABELS, and its TIMEOUT from them (and, for a GPU test, CUDALAB_GPU_TEST_ENV).
function(cudalab_test_labels test labels)
  cudalab_timeout_for("${labels}" timeout)
  set_tests_properties(${test} PROPERTIES LABELS "${labels}" TIMEOUT ${timeout})
  cudalab_set_gpu_test_env(${test} "${labels}")
endfunction()

# CUDALAB_GPU_TEST_ENV for a test with these labels: a GPU test's, unless it is labelled "streams".
function(cudalab_gpu_test_env labels out_var)
  if("gpu" IN_LIST labels AND NOT "streams" IN_LIST labels)
    set(${out_var} "${CUDALAB_GPU_TEST_ENV}" PARENT_SCOPE)
  else()
    set(${out_var} "" PARENT_SCOPE)
  endif()
endfunction()

# The test's ENVIRONMENT from cudalab_gpu_test_env (nothing set where that is empty).
function(cudalab_set_gpu_test_env test labels)
  cudalab_gpu_test_env("${labels}" env)
  if(env)
    set_tests_properties(${test} PROPERTIES ENVIRONMENT "${env}")
  endif()
endfunction()

# Tests start this target through the launcher (ctest prepends a target's emulator).
function(cudalab_use_launcher target)
  if(CUDALAB_TEST_LAUNCHER)
    set_target_properties(${target} PROPERTIES CROSSCOMPILING_EMULATOR "${CUDALAB_TEST_LAUNCHER}")
  endif()
endfunction()

# Kernels that use Hopper's own instructions (wgmma, setmaxnreg: sm_90a) in a lab's kernel
# library: these files are built for sm_90a alone, whatever CMAKE_CUDA_ARCHITECTURES says
# (sm_90a machine code runs on compute capability 9.0 only, and nothing else is built from
# them); their launchers ask the device first and refuse to run anywhere else.
#   cudalab_sm90a_kernels(matmul wgmma.cu)
function(cudalab_sm90a_kernels lab)
  add_library(${lab}_sm90a OBJECT ${ARGN})
  set_target_properties(${lab}_sm90a PROPERTIES CUDA_ARCHITECTURES OFF)
  target_compile_options(${lab}_sm90a PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a>)
  target_include_directories(${lab}_sm90a PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${lab}_sm90a PRIVATE cudalab::common)
  cudalab_warnings(${lab}_sm90a)
  target_sources(${lab}_kernels PRIVATE $<TARGET_OBJECTS:${lab}_sm90a>)
  # A kernel whose wgmma ptxas serialises fails to build (cmake/wgmma_guard.sh says why).
  # A launcher the user gave (ccache) runs inside it.
  set(launcher "${PROJECT_SOURCE_DIR}/cmake/wgmma_guard.sh")
  if(CMAKE_CUDA_COMPILER_LAUNCHER)
    list(APPEND launcher ${CMAKE_CUDA_COMPILER_LAUNCHER})
  endif()
  set_target_properties(${lab}_sm90a PROPERTIES CUDA_COMPILER_LAUNCHER "${launcher}")
endfunction()

function(cudalab_add_lab name)
  cmake_parse_arguments(PARSE_ARGV 1 LAB "" "MAIN" "KERNELS;CPU_TESTS;GPU_TESTS;SMOKE_ARGS;BAD_ARGS;GPU_BAD_ARGS;SANITIZE_ARGS;LIBS;MIN_ARGS")

  # Kernel library (nvcc) that the executable and the tests share.
  add_library(${name}_kernels STATIC ${LAB_KERNELS})
  target_include_directories(${name}_kernels PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name}_kernels PUBLIC cudalab::common ${LAB_LIBS})
  cudalab_warnings(${name}_kernels)

  # The lab executable, in <build>/labs/<name>.
  add_executable(${name} ${LAB_MAIN})
  target_link_libraries(${name} PRIVATE ${name}_kernels)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/labs)
  cudalab_warnings(${name})
  cudalab_use_launcher(${name})

  set(test_dir ${PROJECT_SOURCE_DIR}/tests/${name})
  if(LAB_CPU_TESTS)
    list(TRANSFORM LAB_CPU_TESTS PREPEND ${test_dir}/)
    cudalab_add_gtest(${name}_cpu_test "cpu;${name}" ${LAB_CPU_TESTS})
    target_link_libraries(${name}_cpu_test PRIVATE ${name}_kernels)
  endif()
  if(LAB_GPU_TESTS)
    list(TRANSFORM LAB_GPU_TESTS PREPEND ${test_dir}/)
    cudalab_add_gtest(${name}_gpu_test "gpu;${name}" ${LAB_GPU_TESTS})
    target_link_libraries(${name}_gpu_test PRIVATE ${name}_kernels)
  endif()

  # Smoke tests: the executable as a user runs it.
  add_test(NAME ${name}.smoke.help COMMAND ${name} --help)
  cudalab_test_labels(${name}.smoke.help "cpu;${name};smoke")

  # the real run, with --json: its report must validate against docs/schema/lab-report.schema.json
  add_test(NAME ${name}.smoke.run
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/report_schema.py --run
                   "--launcher=${CUDALAB_TEST_LAUNCHER}" -- $<TARGET_FILE:${name}> ${LAB_SMOKE_ARGS})
  cudalab_test_labels(${name}.smoke.run "gpu;${name};smoke")
  set_tests_properties(${name}.smoke.run PROPERTIES SKIP_RETURN_CODE 77)

  set(i 0)
  foreach(smallest IN LISTS LAB_MIN_ARGS)
    separate_arguments(smallest_list UNIX_COMMAND "${smallest}")
    add_test(NAME ${name}.smoke.smallest.${i}
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/report_schema.py --run
                     "--launcher=${CUDALAB_TEST_LAUNCHER}" -- $<TARGET_FILE:${name}> ${smallest_list})
    cudalab_test_labels(${name}.smoke.smallest.${i} "gpu;${name};smoke")
    set_tests_properties(${name}.smoke.smallest.${i} PROPERTIES SKIP_RETURN_CODE 77)
    math(EXPR i "${i} + 1")
  endforeach()

  set(i 0)
  foreach(bad IN LISTS LAB_BAD_ARGS)
    separate_arguments(bad_list UNIX_COMMAND "${bad}")
    add_test(NAME ${name}.smoke.bad_args.${i}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> "-DARGS=${bad_list}" -DEXPECT=2
                     "-DLAUNCHER=${CUDALAB_TEST_LAUNCHER}" -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    cudalab_test_labels(${name}.smoke.bad_args.${i} "cpu;${name};smoke")
    math(EXPR i "${i} + 1")
  endforeach()
  foreach(bad IN LISTS LAB_GPU_BAD_ARGS)
    separate_arguments(bad_list UNIX_COMMAND "${bad}")
    add_test(NAME ${name}.smoke.bad_args.${i}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> "-DARGS=${bad_list}" -DEXPECT=2
                     "-DLAUNCHER=${CUDALAB_TEST_LAUNCHER}" -DALLOW_NO_DEVICE=ON
                     -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    cudalab_test_labels(${name}.smoke.bad_args.${i} "gpu;${name};smoke")
    set_tests_properties(${name}.smoke.bad_args.${i} PROPERTIES SKIP_REGULAR_EXPRESSION "CUDALAB_SKIPPED")
    math(EXPR i "${i} + 1")
  endforeach()

  # compute-sanitizer over a small run, one test per tool (label sanitize; skipped without a
  # GPU). scripts/sanitize.sh reads the same runs from <build>/sanitize-runs.txt.
  list(JOIN LAB_SANITIZE_ARGS " " sanitize_args_text)
  file(APPEND ${CMAKE_BINARY_DIR}/sanitize-runs.txt "${name} ${sanitize_args_text}\n")
  cudalab_add_sanitize_run(${name} "" TOOLS memcheck initcheck racecheck synccheck ARGS ${LAB_SANITIZE_ARGS})
endfunction()

# cudalab_add_sanitize_run(<lab> <run> TOOLS <tool>... ARGS <arg>...): compute-sanitizer over one
# run of the lab's executable, a test per tool: <lab>.sanitize.<run>.<tool> (<lab>.sanitize.<tool>
# for the run "", the lab's own SANITIZE_ARGS), label sanitize, skipped (77) without a GPU and not
# added where compute-sanitizer is not found. A lab adds runs beside its own where one small run
# cannot reach every kernel (a path taken only at some sizes, a wrapping pipeline).
function(cudalab_add_sanitize_run lab run)
  cmake_parse_arguments(RUN "" "" "TOOLS;ARGS" ${ARGN})
  if(NOT CUDALAB_COMPUTE_SANITIZER)
    return()
  endif()
  set(prefix ${lab}.sanitize)
  if(NOT run STREQUAL "")
    set(prefix ${prefix}.${run})
  endif()
  foreach(tool ${RUN_TOOLS})
    add_test(NAME ${prefix}.${tool}
             COMMAND ${CUDALAB_TEST_LAUNCHER} ${CUDALAB_COMPUTE_SANITIZER} --tool ${tool} --error-exitcode 99
                     $<TARGET_FILE:${lab}> ${RUN_ARGS})
    cudalab_test_labels(${prefix}.${tool} "gpu;${lab};sanitize")
    set_tests_properties(${prefix}.${tool} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endfunction()

# A GoogleTest executable in <build>/tests, its tests discovered by ctest with the given labels.
# A test that calls GTEST_SKIP (a GPU test without a GPU) is reported by ctest as skipped
# (CMake's GoogleTest module sets SKIP_REGULAR_EXPRESSION for every discovered test).
function(cudalab_add_gtest target labels)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE cudalab::common cudalab::testing GTest::gtest cudalab_test_main
                                          nlohmann_json::nlohmann_json)
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  cudalab_warnings(${target})
  cudalab_use_launcher(${target})
  if(CUDALAB_GTEST_BATCH)
    cudalab_timeout_for("${labels}" timeout)
    file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/gtest-batch)
    add_test(NAME ${target}
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gtest_batch.py
                     --junit ${CMAKE_BINARY_DIR}/gtest-batch/${target}.xml --timeout ${timeout}
                     "--launcher=${CUDALAB_TEST_LAUNCHER}" -- $<TARGET_FILE:${target}>)
    set_tests_properties(${target} PROPERTIES LABELS "${labels};gtest_batch" TIMEOUT 3600 COST 100 SKIP_RETURN_CODE 77)  # long: start early
    cudalab_set_gpu_test_env(${target} "${labels}")
    return()
  endif()
  if(CUDALAB_TEST_LAUNCHER)  # graded one case per process: the verdict channel decides, not the exit status
    set_target_properties(${target} PROPERTIES CROSSCOMPILING_EMULATOR
      "${Python3_EXECUTABLE};${PROJECT_SOURCE_DIR}/scripts/gtest_batch.py;--single;--launcher=${CUDALAB_TEST_LAUNCHER};--")
  endif()
  gtest_discover_tests(${target}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60  # listing runs through the grader's sandbox too; 5 s (the default) is tight
    NO_PRETTY_VALUES
    TEST_LIST ${target}_TESTS)
  # Labels are set by a second include file that ctest reads after the discovered tests exist:
  # gtest_discover_tests' PROPERTIES would split a list of labels into separate arguments.
  cudalab_timeout_for("${labels}" timeout)
  cudalab_gpu_test_env("${labels}" env)
  set(env_property "")
  if(env)
    set(env_property " ENVIRONMENT \"${env}\"")
  endif()
  set(label_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${label_file}
       "foreach(t IN LISTS ${target}_TESTS)\n"
       "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${labels}\" TIMEOUT ${timeout}${env_property})\n"
       "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${label_file})
endfunction()
