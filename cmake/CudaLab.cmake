# cudalab_add_lab(): every lab is added with one call, so every lab has the same shape.
#
#   cudalab_add_lab(rgba_split
#     KERNELS   rgba_split.cu            # kernels + host launchers -> library rgba_split_kernels
#     MAIN      main.cu                  # the executable -> <build>/labs/rgba_split
#     CPU_TESTS rgba_split_cpu_test.cpp  # in tests/rgba_split/, labels: cpu;rgba_split
#     GPU_TESTS rgba_split_gpu_test.cpp  # in tests/rgba_split/, labels: gpu;rgba_split
#     SMOKE_ARGS 76 62                   # a small real run (exit 0, or 77 = skipped without a GPU)
#     BAD_ARGS  "0 0" "abc" "--nope"     # each string is one bad invocation that must exit 2
#     GPU_BAD_ARGS "--device 99"         # bad only on a machine with a GPU (else: skipped, 77)
#     SANITIZE_ARGS 77 61 --repeat 2)    # the small run compute-sanitizer checks (label sanitize)
#
# The kernel library is what the tests link, so GoogleTest calls exactly the code the
# executable runs. Smoke tests also check `--help` (exit 0).
function(cudalab_add_lab name)
  cmake_parse_arguments(PARSE_ARGV 1 LAB "" "MAIN" "KERNELS;CPU_TESTS;GPU_TESTS;SMOKE_ARGS;BAD_ARGS;GPU_BAD_ARGS;SANITIZE_ARGS;LIBS")

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
  set_tests_properties(${name}.smoke.help PROPERTIES LABELS "cpu;${name};smoke")

  add_test(NAME ${name}.smoke.run COMMAND ${name} ${LAB_SMOKE_ARGS})
  set_tests_properties(${name}.smoke.run PROPERTIES LABELS "gpu;${name};smoke" SKIP_RETURN_CODE 77)

  set(i 0)
  foreach(bad IN LISTS LAB_BAD_ARGS)
    separate_arguments(bad_list UNIX_COMMAND "${bad}")
    add_test(NAME ${name}.smoke.bad_args.${i}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> "-DARGS=${bad_list}" -DEXPECT=2
                     -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    set_tests_properties(${name}.smoke.bad_args.${i} PROPERTIES LABELS "cpu;${name};smoke")
    math(EXPR i "${i} + 1")
  endforeach()
  foreach(bad IN LISTS LAB_GPU_BAD_ARGS)
    separate_arguments(bad_list UNIX_COMMAND "${bad}")
    add_test(NAME ${name}.smoke.bad_args.${i}
             COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> "-DARGS=${bad_list}" -DEXPECT=2
                     -DALLOW_NO_DEVICE=ON -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    set_tests_properties(${name}.smoke.bad_args.${i} PROPERTIES LABELS "gpu;${name};smoke"
                         SKIP_REGULAR_EXPRESSION "CUDALAB_SKIPPED")
    math(EXPR i "${i} + 1")
  endforeach()

  # compute-sanitizer over a small run, one test per tool (label sanitize; skipped without a
  # GPU). scripts/sanitize.sh reads the same runs from <build>/sanitize-runs.txt.
  list(JOIN LAB_SANITIZE_ARGS " " sanitize_args_text)
  file(APPEND ${CMAKE_BINARY_DIR}/sanitize-runs.txt "${name} ${sanitize_args_text}\n")
  if(CUDALAB_COMPUTE_SANITIZER)
    foreach(tool memcheck initcheck racecheck synccheck)
      add_test(NAME ${name}.sanitize.${tool}
               COMMAND ${CUDALAB_COMPUTE_SANITIZER} --tool ${tool} --error-exitcode 99
                       $<TARGET_FILE:${name}> ${LAB_SANITIZE_ARGS})
      set_tests_properties(${name}.sanitize.${tool} PROPERTIES LABELS "gpu;${name};sanitize" SKIP_RETURN_CODE 77)
    endforeach()
  endif()
endfunction()

# A GoogleTest executable in <build>/tests, its tests discovered by ctest with the given labels.
# A test that calls GTEST_SKIP (a GPU test without a GPU) is reported by ctest as skipped
# (CMake's GoogleTest module sets SKIP_REGULAR_EXPRESSION for every discovered test).
function(cudalab_add_gtest target labels)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE cudalab::common cudalab::testing GTest::gtest GTest::gtest_main
                                          nlohmann_json::nlohmann_json)
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  cudalab_warnings(${target})
  gtest_discover_tests(${target}
    DISCOVERY_MODE PRE_TEST
    NO_PRETTY_VALUES
    TEST_LIST ${target}_TESTS)
  # Labels are set by a second include file that ctest reads after the discovered tests exist:
  # gtest_discover_tests' PROPERTIES would split a list of labels into separate arguments.
  set(label_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${label_file}
       "foreach(t IN LISTS ${target}_TESTS)\n"
       "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${labels}\")\n"
       "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${label_file})
endfunction()
