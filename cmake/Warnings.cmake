# One warning set for host and device code, applied per target by cudalab_warnings().
set(CUDALAB_HOST_WARNINGS -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion)
string(REPLACE ";" "," _cudalab_host_warnings_csv "${CUDALAB_HOST_WARNINGS}")

function(cudalab_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${CUDALAB_HOST_WARNINGS}>
    # nvcc: host-side warnings through -Xcompiler, plus nvcc's own device-side checks.
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_cudalab_host_warnings_csv}>
    $<$<COMPILE_LANGUAGE:CUDA>:--Wreorder --Wext-lambda-captures-this -Xptxas=-warn-spills>)
endfunction()
