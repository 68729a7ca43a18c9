#pragma once
// Exit codes shared by every lab executable (documented in README.md).
namespace cudalab {

enum ExitCode : int {
  kExitSuccess = 0,      // ran, every result matched its CPU reference
  kExitWrongResult = 1,  // a GPU result differed from the CPU reference
  kExitUsage = 2,        // bad command line or unreadable input
  kExitCudaError = 3,    // the CUDA runtime reported an error (including out of memory)
  kExitNoDevice = 77,    // no usable CUDA device; ctest reports the test as skipped
};

}  // namespace cudalab
