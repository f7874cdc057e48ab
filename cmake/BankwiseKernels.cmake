# bankwise_add_kernels(TARGET FILES a.bw [b.bw ...] [ARCH sm_90]
#                      [DEFINES N=4096 ...] [HARNESS])
#
# Turns each .bw file into CUDA at build time with `bankwise compile`
# (re-run when the .bw or bankwise changes) and adds the .cu to TARGET:
# a.bw becomes ${CMAKE_CURRENT_BINARY_DIR}/bankwise/TARGET/a.cu and a.h
# (namespace a: launch_KERNEL functions, docs/codegen.md), and that
# directory is on TARGET's include path, so `#include "a.h"` works. ARCH is
# the model's target (default sm_90); DEFINES are -D params; HARNESS adds
# the harness's main() (for an executable of its own). A program whose
# tables do not fit in the source writes a.tables.bin beside a.cu, which
# the host API opens by that path (set_table_file moves it).
function(bankwise_add_kernels TARGET)
  cmake_parse_arguments(BW "HARNESS" "ARCH" "FILES;DEFINES" ${ARGN})
  if(NOT TARGET ${TARGET})
    message(FATAL_ERROR "bankwise_add_kernels: no target '${TARGET}'")
  endif()
  if(NOT BW_FILES)
    message(FATAL_ERROR "bankwise_add_kernels(${TARGET}): no FILES")
  endif()
  if(BW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "bankwise_add_kernels(${TARGET}): unknown arguments ${BW_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT BW_ARCH)
    set(BW_ARCH sm_90)
  endif()
  if(TARGET bankwise::bankwise)
    set(bw_exe bankwise::bankwise)
  elseif(TARGET bankwise)
    set(bw_exe bankwise) # in bankwise's own build tree
  else()
    message(FATAL_ERROR "bankwise_add_kernels: no bankwise executable (find_package(bankwise) first)")
  endif()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/bankwise/${TARGET}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(defines)
  foreach(d IN LISTS BW_DEFINES)
    list(APPEND defines -D "${d}")
  endforeach()
  set(harness)
  if(BW_HARNESS)
    set(harness --harness)
  endif()
  foreach(bw IN LISTS BW_FILES)
    get_filename_component(bw_abs "${bw}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(stem "${bw}" NAME_WE)
    set(cu "${out_dir}/${stem}.cu")
    set(h "${out_dir}/${stem}.h")
    add_custom_command(
      OUTPUT "${cu}" "${h}"
      COMMAND ${bw_exe} compile "${bw_abs}" -o "${cu}" --header "${h}" --arch ${BW_ARCH} ${defines} ${harness}
      DEPENDS "${bw_abs}" ${bw_exe}
      COMMENT "bankwise: ${stem}.bw -> ${stem}.cu"
      VERBATIM)
    target_sources(${TARGET} PRIVATE "${cu}" "${h}")
  endforeach()
  target_include_directories(${TARGET} PRIVATE "${out_dir}")
endfunction()
