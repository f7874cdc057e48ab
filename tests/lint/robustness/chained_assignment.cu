// A chained assignment to memory (`pixel[0] = pixel[1] = pixel[2] = v`, as
// in a public texture sample) stores three bytes and loads none: the value
// of `pixel[2] = v` is v, which nvcc does not load back. The lint read the
// right-hand stores back, and warned of two uncoalesced loads that do not
// exist. 4 blocks of 256 threads, one byte every 4: 4 sectors where 1 would
// do, per store.
__global__ void rgb(unsigned char *surface, unsigned char v) {
  unsigned char *pixel = surface + 4 * (blockIdx.x * 256 + threadIdx.x);
  // CHECK: warning: uncoalesced global store to 'surface': 4 sectors per request, 1 at best (1 128-byte lines; lanes stride 1 words) [bankwise-uncoalesced]
  // CHECK: warning: uncoalesced global store to 'surface': 4 sectors per request, 1 at best (1 128-byte lines; lanes stride 1 words) [bankwise-uncoalesced]
  // CHECK: warning: uncoalesced global store to 'surface': 4 sectors per request, 1 at best (1 128-byte lines; lanes stride 1 words) [bankwise-uncoalesced]
  pixel[0] = pixel[1] = pixel[2] = v;  // REQUESTS: 96
}

void run(unsigned char *s) { rgb<<<4, 256>>>(s, 7); }
