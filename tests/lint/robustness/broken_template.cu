// EXIT: 2
// A template kernel whose body is wrong only for one instantiation: the
// element type has no member 'x'. The float4 instantiation is analyzed;
// the float one is an error at the use, with its instantiation's launch.
#include <cuda_runtime.h>

template <typename V>
// CHECK: note: kernel 'first_component<float4>' not analyzed: its template's body has errors (the first at line 11) [bankwise-unanalyzed]
__global__ void first_component(const V *in, float *out) {
  // CHECK: error: member reference base type 'const float' is not a structure or union [clang-diagnostic-error]
  out[threadIdx.x] = in[threadIdx.x].x;
}

void launch(const float4 *a, const float *b, float *out) {
  first_component<float4><<<1, 128>>>(a, out);
  first_component<float><<<1, 128>>>(b, out);
}
