// A pointer used as a condition (a null test) crashed the lint (issue [13]
// item 1): the test is not a value the lint evaluates, so the store under
// it is figured as if every lane took the branch, and says so.
// CHECK: note: condition not understood (a pointer tested against null): accesses under it are figured as if every lane took each branch, so they give notes, not warnings [bankwise-unanalyzed]
__global__ void k(float *p) { if (p) p[threadIdx.x] = 1.0f; }

__global__ void tested_twice(const float *in, float *out) {
  // CHECK: note: condition not understood (a pointer tested against null): accesses under it are figured as if every lane took each branch, so they give notes, not warnings [bankwise-unanalyzed]
  if (in && out)
    out[threadIdx.x] = in[threadIdx.x];
  // CHECK: note: early return under a condition the lint cannot evaluate (a pointer tested against null): the accesses after it assume every lane goes on [bankwise-unanalyzed]
  if (!out)
    return;
}
