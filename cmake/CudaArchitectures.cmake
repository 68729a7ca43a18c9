# Default GPU architectures, chosen only when the user named none.
#
#   - A GPU is visible (nvidia-smi lists one): `native`, i.e. exactly the GPUs in this machine.
#   - No GPU visible (CI, a laptop without NVIDIA hardware): CUDALAB_PORTABLE_ARCHITECTURES,
#     machine code (SASS) for Turing, Ampere, Ada and Hopper, plus compute_90 PTX that the
#     driver JIT-compiles for anything newer (Blackwell and later). CUDA 13 cannot target
#     anything below sm_75.
#
# Overrides, strongest first: -DCMAKE_CUDA_ARCHITECTURES=..., the CUDAARCHS environment
# variable, then this default. The choice is cached, so a re-configure keeps it.
set(CUDALAB_PORTABLE_ARCHITECTURES "75-real;80-real;86-real;89-real;90"
    CACHE STRING "GPU architectures used when no GPU is visible and none were given")

function(cudalab_choose_default_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(reason "given by the user")
  elseif(DEFINED ENV{CUDAARCHS})
    set(reason "from the CUDAARCHS environment variable")
  else()
    find_program(CUDALAB_NVIDIA_SMI nvidia-smi)
    set(gpu_visible FALSE)
    if(CUDALAB_NVIDIA_SMI)
      execute_process(COMMAND "${CUDALAB_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                      RESULT_VARIABLE rv OUTPUT_VARIABLE out ERROR_QUIET TIMEOUT 20)
      if(rv EQUAL 0 AND out MATCHES "[0-9]+\\.[0-9]+")
        set(gpu_visible TRUE)
      endif()
    endif()
    if(gpu_visible)
      set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "GPU architectures to build for")
      set(reason "default: a GPU is visible, building for it")
    else()
      set(CMAKE_CUDA_ARCHITECTURES "${CUDALAB_PORTABLE_ARCHITECTURES}" CACHE STRING
          "GPU architectures to build for")
      set(reason "default: no GPU visible, portable list")
    endif()
  endif()
  set(CUDALAB_ARCH_REASON "${reason}" PARENT_SCOPE)
endfunction()
