# Compiles INPUT with `bankwise compile --harness` (DEFINES: "-D;N=64;..."),
# rewrites its kernel launches for EmulationShim.h, builds it with the host
# compiler CXX and runs its harness: the generated kernels, executed on the
# CPU, must agree with the generated CPU reference.
#   cmake -DBANKWISE=... -DINPUT=... -DDEFINES=... -DWORK=... -DCXX=... -DCUDA_INCLUDE=...
#         -DSHIM=... -DSRCDIR=... -P Emulate.cmake
get_filename_component(Name ${INPUT} NAME_WE)
file(MAKE_DIRECTORY ${WORK})
set(Cu ${WORK}/${Name}.cu)
string(REPLACE "," ";" Defines "${DEFINES}")
execute_process(COMMAND ${BANKWISE} compile ${INPUT} ${Defines} --harness -o ${Cu}
                WORKING_DIRECTORY ${SRCDIR} RESULT_VARIABLE Rc ERROR_VARIABLE Err)
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "bankwise compile ${INPUT} failed:\n${Err}")
endif()
file(READ ${Cu} Text)
string(REGEX REPLACE "\n  ([A-Za-z_0-9]+)<<<(dim3\\([^)]*\\)), (dim3\\([^)]*\\)), [^,\n]*, stream>>>\\("
                     "\n  bw_emulate(\\1, \\2, \\3, " Text "${Text}")
file(WRITE ${WORK}/${Name}.cpp "${Text}")
execute_process(COMMAND ${CXX} -std=c++20 -O1 -w -pthread -include ${SHIM} -I${CUDA_INCLUDE}
                        -x c++ ${WORK}/${Name}.cpp -o ${WORK}/${Name}
                RESULT_VARIABLE Rc ERROR_VARIABLE Err)
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "host compile of ${Name} failed:\n${Err}")
endif()
execute_process(COMMAND ${WORK}/${Name} --check-only WORKING_DIRECTORY ${SRCDIR}
                RESULT_VARIABLE Rc OUTPUT_VARIABLE Out ERROR_VARIABLE Err)
message("${Out}${Err}")
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "the emulated kernels of ${Name} disagree with the CPU reference (exit ${Rc})")
endif()
