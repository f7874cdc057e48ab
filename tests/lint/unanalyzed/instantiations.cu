// What the lint does not understand in a template kernel is said once per
// line and cause, not once per instantiation (issue [13] item 2): the
// three instantiations below give one note for the shared struct (whose
// type names the element type, 'MinMax<float>', 'MinMax<double>' ...) and
// one for the pointer made from an integer, each saying how many
// instantiations it covers.
#include <cuda_runtime.h>

template <typename T>
struct MinMax {
  T lo, hi;
};

template <typename T, int BLOCK>
__global__ void offset_by_min(T *out, const T *in) {
  // CHECK: note: shared variable 'range' of type 'MinMax<float>' is not modelled; its accesses are not analyzed (in 3 instantiations) [bankwise-unanalyzed]
  __shared__ MinMax<T> range;
  __shared__ T tile[BLOCK];
  tile[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    range.lo = tile[0];
  __syncthreads();
  unsigned long long addr = reinterpret_cast<unsigned long long>(&tile[threadIdx.x]);
  // CHECK: note: access not analyzed: an integer cast to a pointer (in 3 instantiations) [bankwise-unanalyzed]
  out[blockIdx.x * BLOCK + threadIdx.x] = *reinterpret_cast<T *>(addr) - range.lo;
}

void launch(float *f, double *d, int *i) {
  offset_by_min<float, 64><<<32, 64>>>(f, f);
  offset_by_min<double, 64><<<32, 64>>>(d, d);
  offset_by_min<int, 128><<<32, 128>>>(i, i);
}
