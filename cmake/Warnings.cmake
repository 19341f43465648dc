# workbook_set_warnings(<target>)
# Host code: -Wall -Wextra; device code: nvcc's own warnings, and the host
# compiler's flags passed through -Xcompiler. Warnings are errors for our code.
option(WORKBOOK_WARNINGS_AS_ERRORS "Treat compiler warnings in workbook code as errors" ON)

function(workbook_set_warnings target)
  set(host_flags -Wall -Wextra)
  if(WORKBOOK_WARNINGS_AS_ERRORS)
    list(APPEND host_flags -Werror)
    set(cuda_werror --Werror=all-warnings)
  endif()
  list(JOIN host_flags "," host_flags_csv)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${host_flags}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${host_flags_csv} ${cuda_werror}>)
endfunction()
