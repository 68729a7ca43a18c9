# Third-party libraries, all found as installed packages (scripts/install-deps.sh installs them).
# A missing one stops the configure with the Debian/Ubuntu package that provides it.
find_package(CUDAToolkit REQUIRED)

macro(cudalab_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR
      "cuda_labs needs ${package}, which was not found.\n"
      "On Debian/Ubuntu: sudo apt-get install ${debian_package}\n"
      "or run scripts/install-deps.sh, which installs every missing dependency.")
  endif()
endmacro()

cudalab_require(GTest libgtest-dev)
cudalab_require(CLI11 libcli11-dev)
cudalab_require(fmt libfmt-dev)
cudalab_require(nlohmann_json nlohmann-json3-dev)
cudalab_require(PNG libpng-dev)    # rgba_split --input/--output-dir
cudalab_require(JPEG libjpeg-dev)  # rgba_split --input photo.jpg

find_package(Python3 COMPONENTS Interpreter)  # the grading command and its self-test
if(NOT Python3_FOUND)
  message(FATAL_ERROR "cuda_labs needs python3 for scripts/grade.py.\n"
                      "On Debian/Ubuntu: sudo apt-get install python3 (or run scripts/install-deps.sh)")
endif()

include(GoogleTest)
