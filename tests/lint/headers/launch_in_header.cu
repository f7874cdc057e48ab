// The launch is in the included header (launch_in_header.cuh): its block
// is the kernel's, as a launch in this file would be.
#include "launch_in_header.cuh"

int main() {
  run_column_pairs(nullptr, nullptr);
  return 0;
}
