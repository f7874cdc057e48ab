// An array of structures against a structure of arrays. The lint does not
// model arrays of structs: the field read through p[i].mass gives a note,
// not a figure. The same field from its own array is contiguous (clean).
#include <cuda_runtime.h>

struct Particle {
  float x, y, z, mass;
};

struct Particles {
  float *x, *y, *z, *mass;
};

__global__ void kinetic_aos(const Particle *p, float *energy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    // CHECK: note: access not analyzed: 'p' points to 'const struct Particle', which the lint does not model [bankwise-unanalyzed]
    energy[i] = 0.5f * p[i].mass;
}

__global__ void kinetic_soa(const float *__restrict__ mass, float *energy, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    energy[i] = 0.5f * mass[i];
}

void launch(const Particle *p, Particles soa, float *e, int n) {
  kinetic_aos<<<(n + 127) / 128, 128>>>(p, e, n);
  kinetic_soa<<<(n + 127) / 128, 128>>>(soa.mass, e, n);
}
