#pragma once
// The shared frame of every lab's main(): runs the lab body and turns every way it can end
// into the project's exit codes (exit_codes.hpp), each with one line on stderr.
//
//   int main(int argc, char** argv) {
//     return cudalab::run_lab("rgba_split", [&] { return run(argc, argv); });
//   }
#include <functional>
#include <string>

#include "common/exit_codes.hpp"

namespace cudalab {

// `body` returns an exit code (kExitSuccess or kExitWrongResult, or a code from Cli::parse).
// Exceptions map to: UsageError -> 2, NoDeviceError (and CUDA "no device"/"no driver" errors)
// -> 77, CudaError -> 3, std::bad_alloc -> 3, anything else -> 3.
int run_lab(const std::string& lab_name, const std::function<int()>& body);

}  // namespace cudalab
