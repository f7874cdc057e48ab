# Compiles INPUT with `bankwise compile --harness` (the .cu, its header, and
# a side file where the tables need one) and the .cu with nvcc, every warning
# an error. The goldens keep templates by name and hash and the harness
# apart, so this compiles what users get, whole.
#   cmake -DBANKWISE=... -DNVCC=... -DINPUT=... -DWORK=... -DTEMPLATES=... -P NvccSample.cmake
get_filename_component(Stem ${INPUT} NAME_WE)
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${BANKWISE} compile ${INPUT} -o ${WORK}/${Stem}.cu --header ${WORK}/${Stem}.h --harness
                RESULT_VARIABLE Rc OUTPUT_VARIABLE Out ERROR_VARIABLE Out)
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "bankwise compile ${INPUT} failed (${Rc}):\n${Out}")
endif()
execute_process(COMMAND ${NVCC} -arch=sm_90 -std=c++17 -Werror all-warnings -I${TEMPLATES}
                        -c ${WORK}/${Stem}.cu -o ${WORK}/${Stem}.o
                RESULT_VARIABLE Rc OUTPUT_VARIABLE Out ERROR_VARIABLE Out)
if(NOT Rc EQUAL 0)
  message(FATAL_ERROR "nvcc ${Stem}.cu failed (${Rc}):\n${Out}")
endif()
