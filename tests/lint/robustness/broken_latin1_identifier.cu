// EXIT: 2
// Bytes that are not UTF-8, as an editor set to Latin-1 saves them: in a
// comment they are harmless (résultat), in an identifier they are an
// error, and the diagnostics that quote them stay readable.
#include <cuda_runtime.h>

// CHECK: note: kernel 'latin1' not analyzed: its body has errors (the first at line 11) [bankwise-unanalyzed]
__global__ void latin1(float *out) {
  // CHECK: error: source file is not valid UTF-8 [clang-diagnostic-error]
  // CHECK: error: expected ';' at end of declaration [clang-diagnostic-error]
  float résultat = 1.0f;
  // CHECK: error: source file is not valid UTF-8 [clang-diagnostic-error]
  // CHECK: error: expected ';' after expression [clang-diagnostic-error]
  // CHECK: error: use of undeclared identifier 'sultat' [clang-diagnostic-error]
  out[threadIdx.x] = résultat;
}
