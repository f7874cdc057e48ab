









































































































































































































































































































































































































































































































__global__ void __launch_bounds__(1024) permute_random_pass0(const float *src, float *dst, const std::uint16_t *s, const std::uint16_t *d) {
  constexpr unsigned Words = 1024; // words per block
  constexpr unsigned long long Cols = 1024; // C
  __shared__ float bw_buf[Words];
  const unsigned bw_blk = blockIdx.x;
  const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;
  const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;
  float bw_v[1];
  // (1) the block's row (strip) into shared memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:15 read of 'a' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    bw_v[k] = src[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)];
    // 34:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[j] = bw_v[k];
  }
  __syncthreads();
  // (2) and (3): read the schedule, gather buf[s[j]] into registers
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:3 read of 'colored_permute_random_s0' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_from = bw_s[j];
    // 34:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[bw_from];
  }
  __syncthreads();
  // (3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:3 read of 'colored_permute_random_d0' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_to = bw_d[j];
    // 34:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[bw_to] = bw_v[k];
  }
  __syncthreads();
  // (4) the permuted row (strip) back to global memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[j];
    // 34:3 write of 'b' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    dst[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)] = bw_v[k];
  }
}



__global__ void __launch_bounds__(512) permute_random_pass1(const float *src, float *dst, const std::uint16_t *s, const std::uint16_t *d) {
  constexpr unsigned Words = 512; // words per block
  constexpr unsigned long long Cols = 1024; // C
  __shared__ float bw_buf[Words];
  const unsigned bw_blk = blockIdx.x;
  const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;
  const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;
  float bw_v[1];
  // (1) the block's row (strip) into shared memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 34:3 read of 'b' [raw] (global): sm_90 sectors 4, lines 4; UMM groups 4
    bw_v[k] = src[bankwise::hmmAddress<true, 8>(bw_blk, j, Cols)];
    // 34:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[j] = bw_v[k];
  }
  __syncthreads();
  // (2) and (3): read the schedule, gather buf[s[j]] into registers
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 34:3 read of 'colored_permute_random_s1' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_from = bw_s[j];
    // 34:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[bw_from];
  }
  __syncthreads();
  // (3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 34:3 read of 'colored_permute_random_d1' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_to = bw_d[j];
    // 34:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[bw_to] = bw_v[k];
  }
  __syncthreads();
  // (4) the permuted row (strip) back to global memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 34:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[j];
    // 34:3 write of 'b' [raw] (global): sm_90 sectors 4, lines 4; UMM groups 4
    dst[bankwise::hmmAddress<true, 8>(bw_blk, j, Cols)] = bw_v[k];
  }
}



__global__ void __launch_bounds__(1024) permute_random_pass2(const float *src, float *dst, const std::uint16_t *s, const std::uint16_t *d) {
  constexpr unsigned Words = 1024; // words per block
  constexpr unsigned long long Cols = 1024; // C
  __shared__ float bw_buf[Words];
  const unsigned bw_blk = blockIdx.x;
  const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;
  const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;
  float bw_v[1];
  // (1) the block's row (strip) into shared memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:3 read of 'b' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    bw_v[k] = src[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)];
    // 34:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[j] = bw_v[k];
  }
  __syncthreads();
  // (2) and (3): read the schedule, gather buf[s[j]] into registers
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:3 read of 'colored_permute_random_s2' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_from = bw_s[j];
    // 34:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[bw_from];
  }
  __syncthreads();
  // (3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:3 read of 'colored_permute_random_d2' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_to = bw_d[j];
    // 34:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[bw_to] = bw_v[k];
  }
  __syncthreads();
  // (4) the permuted row (strip) back to global memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 34:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[j];
    // 34:3 write of 'b' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    dst[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)] = bw_v[k];
  }
}














__global__ void __launch_bounds__(1024) permute_bitrev_pass0(const std::uint32_t *src, std::uint32_t *dst, const std::uint16_t *s, const std::uint16_t *d) {
  constexpr unsigned Words = 1024; // words per block
  constexpr unsigned long long Cols = 1024; // C
  __shared__ std::uint32_t bw_buf[Words];
  const unsigned bw_blk = blockIdx.x;
  const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;
  const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;
  std::uint32_t bw_v[1];
  // (1) the block's row (strip) into shared memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:12 read of 'a' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    bw_v[k] = src[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)];
    // 40:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[j] = bw_v[k];
  }
  __syncthreads();
  // (2) and (3): read the schedule, gather buf[s[j]] into registers
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:3 read of 'colored_permute_bitrev_s0' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_from = bw_s[j];
    // 40:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[bw_from];
  }
  __syncthreads();
  // (3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:3 read of 'colored_permute_bitrev_d0' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_to = bw_d[j];
    // 40:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[bw_to] = bw_v[k];
  }
  __syncthreads();
  // (4) the permuted row (strip) back to global memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[j];
    // 40:3 write of 'b' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    dst[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)] = bw_v[k];
  }
}



__global__ void __launch_bounds__(512) permute_bitrev_pass1(const std::uint32_t *src, std::uint32_t *dst, const std::uint16_t *s, const std::uint16_t *d) {
  constexpr unsigned Words = 512; // words per block
  constexpr unsigned long long Cols = 1024; // C
  __shared__ std::uint32_t bw_buf[Words];
  const unsigned bw_blk = blockIdx.x;
  const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;
  const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;
  std::uint32_t bw_v[1];
  // (1) the block's row (strip) into shared memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 40:3 read of 'b' [raw] (global): sm_90 sectors 4, lines 4; UMM groups 4
    bw_v[k] = src[bankwise::hmmAddress<true, 8>(bw_blk, j, Cols)];
    // 40:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[j] = bw_v[k];
  }
  __syncthreads();
  // (2) and (3): read the schedule, gather buf[s[j]] into registers
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 40:3 read of 'colored_permute_bitrev_s1' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_from = bw_s[j];
    // 40:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[bw_from];
  }
  __syncthreads();
  // (3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 40:3 read of 'colored_permute_bitrev_d1' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_to = bw_d[j];
    // 40:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[bw_to] = bw_v[k];
  }
  __syncthreads();
  // (4) the permuted row (strip) back to global memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 512u;
    // 40:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[j];
    // 40:3 write of 'b' [raw] (global): sm_90 sectors 4, lines 4; UMM groups 4
    dst[bankwise::hmmAddress<true, 8>(bw_blk, j, Cols)] = bw_v[k];
  }
}



__global__ void __launch_bounds__(1024) permute_bitrev_pass2(const std::uint32_t *src, std::uint32_t *dst, const std::uint16_t *s, const std::uint16_t *d) {
  constexpr unsigned Words = 1024; // words per block
  constexpr unsigned long long Cols = 1024; // C
  __shared__ std::uint32_t bw_buf[Words];
  const unsigned bw_blk = blockIdx.x;
  const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;
  const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;
  std::uint32_t bw_v[1];
  // (1) the block's row (strip) into shared memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:3 read of 'b' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    bw_v[k] = src[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)];
    // 40:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[j] = bw_v[k];
  }
  __syncthreads();
  // (2) and (3): read the schedule, gather buf[s[j]] into registers
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:3 read of 'colored_permute_bitrev_s2' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_from = bw_s[j];
    // 40:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[bw_from];
  }
  __syncthreads();
  // (3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:3 read of 'colored_permute_bitrev_d2' [raw] (global): sm_90 sectors 2, lines 1; UMM groups 1
    const unsigned bw_to = bw_d[j];
    // 40:3 write of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_buf[bw_to] = bw_v[k];
  }
  __syncthreads();
  // (4) the permuted row (strip) back to global memory, coalesced
  #pragma unroll
  for (unsigned k = 0; k < 1; ++k) {
    const unsigned j = threadIdx.x + k * 1024u;
    // 40:3 read of 'bw_buf' [raw] (shared): sm_90 wavefronts 1; DMM congestion 1
    bw_v[k] = bw_buf[j];
    // 40:3 write of 'b' [raw] (global): sm_90 sectors 4, lines 1; UMM groups 1
    dst[bankwise::hmmAddress<false, 8>(bw_blk, j, Cols)] = bw_v[k];
  }
}































































































































































































































































