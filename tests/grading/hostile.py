"""Hostile submissions, one per threat of docs/grading-security.md. Each is a region body a
student could hand in (written into the handout's file by test_hostile.py) and what the grader
must make of it. `rejected` bodies never reach the compiler; the others compile and run in the
sandbox, where they must earn nothing they did not earn."""

RESIDENCY = ("labs/device_query/device_query.cu", "device_query.residency")
NAIVE = ("labs/vec_add/vec_add.cu", "vec_add.naive")

ATTACKS = {
    # 1. points for tests it does not pass: leave the process early with exit code 0
    "exit_early": (RESIDENCY, "  std::exit(0);", "rejected"),
    "quick_exit": (RESIDENCY, "  ::quick_exit(0);", "rejected"),
    "atexit_hook": (RESIDENCY, "  std::atexit([] {});", "rejected"),
    # ... or print what a test runner prints
    "fake_runner_output": (NAIVE, '  if (i == 0) printf("[  PASSED  ] 1 test.\\n");', "rejected"),
    # 2. code from outside its region: close the function and declare at top level (a static
    #    initialiser that would run before the harness)
    "close_the_function": (RESIDENCY, "  return r;\n}\nstatic int evil = [] { return 1; }();\n"
                                      "static ResidencyReport unused() {\n  ResidencyReport r{};", "rejected"),
    "macro": (NAIVE, "#define a b\n  (void)n;", "rejected"),
    # 3. the solutions or hidden tests through an include path
    "include_solutions": (NAIVE, '#include "../../tests/vec_add/vec_add_gpu_test.cpp"', "rejected"),
    "raw_string_hides_brace": (RESIDENCY, '  const char* s = R"(})"; (void)s;', "rejected"),
    "digraph_brace": (RESIDENCY, "  <% %>", "rejected"),
    "digraph_bracket": (RESIDENCY, "  int x<:1:> = {0}; (void)x;", "rejected"),
    # a lone carriage return ends a line for the compiler: what looks like one comment line closes
    # the function and declares at namespace scope
    "lone_cr_closes_the_function": (RESIDENCY, "  // only a comment\r  return r;\r}\rstatic int evil = 1;\r"
                                               "BlockResidency unused() {\r  BlockResidency r;", "rejected"),
    "splice_in_a_comment": (RESIDENCY, "  // a comment \\\n  }", "rejected"),
    "universal_character_name": (RESIDENCY, "  \\u0065xit(0);", "rejected"),
    # the region check used to take an hour on one long line of digit separators
    "digit_separators": (RESIDENCY, "  (void)(1" + "'1" * 200000 + ");", "rejected"),
    # 4. files, processes, the environment at run time
    "read_files": (RESIDENCY, '  std::ifstream f("/etc/hostname");', "rejected"),
    "spawn_shell": (RESIDENCY, '  system("touch /tmp/owned");', "rejected"),
    "asm": (NAIVE, '  asm("trap;");', "rejected"),
    # 5. runs, but never ends: bounded by the test TIMEOUT, and only its own tests fail
    "host_loop_forever": (RESIDENCY, "  for (volatile int k = 0; k >= 0; k = k * 0) {\n  }", "timed out"),
}

# Pass the region check (no denied word) but not the allow-list on the compiled object: an output
# call the deny-list does not name, now and from a local static's destructor at exit (printing
# GoogleTest's verdict lines). Graded in the batch: the region is not taken, and says which symbol.
COMPILED_ATTACKS = {
    "prints_through_an_unlisted_call": (RESIDENCY, "  struct Late {\n    ~Late() { fmt::print(\"[       OK ] Fake.Case (0 ms)\\n\"); }\n"
                                                   "  };\n  static Late late;\n  (void)late;\n"
                                                   "  fmt::print(\"[       OK ] DeviceQuery.Fake (0 ms)\\n\");\n"
                                                   "  (void)max_threads_per_sm; (void)max_blocks_per_sm; (void)warp_size;",
                                        "fmt::"),
}

# Needs a GPU (on a CPU machine its tests are skipped): a kernel that never ends. Its tests time
# out, the kill frees the GPU, and the next tests and submissions still run on it.
GPU_ATTACKS = {
    "kernel_loop_forever": (NAIVE, "  for (volatile int k = 0; k >= 0; k = k * 0) {\n  }\n  (void)a; (void)b; (void)c; (void)n;",
                            "timed out"),
}
