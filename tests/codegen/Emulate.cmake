# Compiles INPUT with `bankwise compile --harness` (DEFINES: "-D,N=64,..."),
# rewrites its kernel launches for EmulationShim.h, builds it with the host
# compiler CXX and runs its harness with ARGS ("R=33,C=65": runtime sizes):
# the generated kernels, executed on the CPU, must agree with the generated
# CPU reference. With DRIVER (a .cpp with its own main), INPUT is a list of
# programs ("a.bw,b.bw"), each compiled without a harness into the namespace
# of its stem; the driver, compiled after them, calls their launch functions.
#   cmake -DBANKWISE=... -DINPUT=... -DDEFINES=... [-DARGS=...] [-DDRIVER=...] -DWORK=... -DCXX=...
#         -DCUDA_INCLUDE=... -DSHIM=... -DSRCDIR=... -P Emulate.cmake
string(REPLACE "," ";" Inputs "${INPUT}")
string(REPLACE "," ";" Defines "${DEFINES}")
string(REPLACE "," ";" Args "${ARGS}")
file(MAKE_DIRECTORY ${WORK})
set(Text "")
foreach(In IN LISTS Inputs)
  get_filename_component(Stem ${In} NAME_WE)
  if(DRIVER)
    set(Mode --namespace ${Stem})
  else()
    set(Mode --harness)
  endif()
  execute_process(COMMAND ${BANKWISE} compile ${In} ${Defines} ${Mode} -o ${WORK}/${Stem}.cu
                  WORKING_DIRECTORY ${SRCDIR} RESULT_VARIABLE Rc ERROR_VARIABLE Err)
  if(NOT Rc EQUAL 0)
    message(FATAL_ERROR "bankwise compile ${In} failed:\n${Err}")
  endif()
  file(READ ${WORK}/${Stem}.cu Cu)
  string(APPEND Text "${Cu}")
endforeach()
# A grid is dim3(...) or, computed from runtime sizes at launch, bw_grid.
string(REGEX REPLACE "\n  ([A-Za-z_0-9]+)<<<(dim3\\([^)]*\\)|bw_grid), (dim3\\([^)]*\\)), [^,\n]*, stream>>>\\("
                     "\n  bw_emulate(\\1, \\2, \\3, " Text "${Text}")
if(DRIVER)
  get_filename_component(Name ${DRIVER} NAME_WE)
  string(APPEND Text "\n#include \"${DRIVER}\"\n")
else()
  set(Name ${Stem})
  set(Args --check-only ${Args})
endif()
file(WRITE ${WORK}/${Name}.cpp "${Text}")
execute_process(COMMAND ${CXX} -std=c++20 -O1 -w -pthread -include ${SHIM} -I${CUDA_INCLUDE}
                        -x c++ ${WORK}/${Name}.cpp -o ${WORK}/${Name}
                RESULT_VARIABLE Rc ERROR_VARIABLE Err)
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "host compile of ${Name} failed:\n${Err}")
endif()
execute_process(COMMAND ${WORK}/${Name} ${Args} WORKING_DIRECTORY ${SRCDIR}
                RESULT_VARIABLE Rc OUTPUT_VARIABLE Out ERROR_VARIABLE Err)
message("${Out}${Err}")
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "the emulated kernels of ${Name} disagree with their reference (exit ${Rc})")
endif()
