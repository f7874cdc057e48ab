__global__ void broken(float *a) {
  a[threadIdx.x] = undeclared_name;
}
