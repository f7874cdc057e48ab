// Valid CUDA (`nvcc -c -arch=sm_90` accepts it) using the cache-hinted
// loads and stores on int4 pointers, which Clang 19's CUDA headers do not
// declare: they are accesses through their pointer like any other, and the
// strided ones are found (issue [13] item 3).
__global__ void stream_copy(int4 *out, const int4 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int4 v = __ldcs(in + i);
  __stcs(out + i, v);
  __stcg(&out[n + i], __ldcg(&in[n + i]));
  // CHECK: warning: uncoalesced global load from 'in': 32 sectors per request, 16 at best (32 128-byte lines; lanes stride 32 words) [bankwise-uncoalesced]
  int4 w = __ldlu(in + 8 * i);
  // CHECK: warning: uncoalesced global store to 'out': 32 sectors per request, 16 at best (32 128-byte lines; lanes stride 32 words) [bankwise-uncoalesced]
  __stwt(out + 8 * i, w);
}

void launch(int4 *out, const int4 *in, int n) { stream_copy<<<(n + 255) / 256, 256>>>(out, in, n); }
