




































































































































































































































































































































































































































__global__ void __launch_bounds__(256) transpose_f32(const float *in, float *out) {
  using Index = int;
  constexpr Index R = 250; // param
  constexpr Index C = 170; // param
  const Index tx = static_cast<Index>(threadIdx.x);
  const Index ty = static_cast<Index>(threadIdx.y);
  const Index bx = static_cast<Index>(blockIdx.x);
  const Index by = static_cast<Index>(blockIdx.y);
  __shared__ float tile[1056]; // layout pad(1) of [32][32] (analysis/Layout.h); chosen by layout auto: sm_90 wavefronts 2860, raw 44000
  constexpr bankwise::PadLayout<32, 1> tile_layout{};
  for (Index k = 0; k < 4; ++k) {
    Index r = by * 32 + ty + 8 * k;
    Index c = bx * 32 + tx;
    if ((r < R) && (c < C)) {
      // 20:25 write of 'tile' [pad(1)] (shared): sm_90 wavefronts 1; DMM congestion 1
      // 20:48 read of 'in' [raw] (global): sm_90 sectors 2..5 (mean 4.29), lines 1..2 (mean 1.82); UMM groups 1..2 (mean 1.82)
      tile[tile_layout.offset(ty + 8 * k, tx)] = in[r * 170 + c];
    }
  }
  __syncthreads();
  for (Index k = 0; k < 4; ++k) {
    Index r = bx * 32 + ty + 8 * k;
    Index c = by * 32 + tx;
    if ((r < C) && (c < R)) {
      // 26:25 write of 'out' [raw] (global): sm_90 sectors 4..5 (mean 4.65), lines 1..2 (mean 1.91); UMM groups 1..2 (mean 1.91)
      // 26:37 read of 'tile' [pad(1)] (shared): sm_90 wavefronts 1; DMM congestion 1
      out[r * 250 + c] = tile[tile_layout.offset(tx, ty + 8 * k)];
    }
  }
}




__global__ void __launch_bounds__(256) transpose_f64(const double *in, double *out) {
  using Index = int;
  constexpr Index R = 250; // param
  constexpr Index C = 170; // param
  const Index tx = static_cast<Index>(threadIdx.x);
  const Index ty = static_cast<Index>(threadIdx.y);
  const Index bx = static_cast<Index>(blockIdx.x);
  const Index by = static_cast<Index>(blockIdx.y);
  __shared__ double tile[1056]; // layout pad(1) of [32][32] (analysis/Layout.h); chosen by layout auto: sm_90 wavefronts 5470, raw 45250
  constexpr bankwise::PadLayout<32, 1> tile_layout{};
  for (Index k = 0; k < 4; ++k) {
    Index r = by * 32 + ty + 8 * k;
    Index c = bx * 32 + tx;
    if ((r < R) && (c < C)) {
      // 36:25 write of 'tile' [pad(1)] (shared): sm_90 wavefronts 1..2 (mean 1.83); DMM congestion 1
      // 36:48 read of 'in' [raw] (global): sm_90 sectors 3..9 (mean 7.58), lines 1..3 (mean 2.64); UMM groups 1..2 (mean 1.82)
      tile[tile_layout.offset(ty + 8 * k, tx)] = in[r * 170 + c];
    }
  }
  __syncthreads();
  for (Index k = 0; k < 4; ++k) {
    Index r = bx * 32 + ty + 8 * k;
    Index c = by * 32 + tx;
    if ((r < C) && (c < R)) {
      // 42:25 write of 'out' [raw] (global): sm_90 sectors 7..9 (mean 8.31), lines 2..3 (mean 2.82); UMM groups 1..2 (mean 1.91)
      // 42:37 read of 'tile' [pad(1)] (shared): sm_90 wavefronts 2; DMM congestion 1
      out[r * 250 + c] = tile[tile_layout.offset(tx, ty + 8 * k)];
    }
  }
}




__global__ void __launch_bounds__(256) transpose_f16(const __half *in, __half *out) {
  using Index = int;
  constexpr Index R = 250; // param
  constexpr Index C = 170; // param
  const Index tx = static_cast<Index>(threadIdx.x);
  const Index ty = static_cast<Index>(threadIdx.y);
  const Index bx = static_cast<Index>(blockIdx.x);
  const Index by = static_cast<Index>(blockIdx.y);
  __shared__ __half tile[1088]; // layout pad(2) of [32][32] (analysis/Layout.h); chosen by layout auto: sm_90 wavefronts 2860, raw 22750
  constexpr bankwise::PadLayout<32, 2> tile_layout{};
  for (Index k = 0; k < 4; ++k) {
    Index r = by * 32 + ty + 8 * k;
    Index c = bx * 32 + tx;
    if ((r < R) && (c < C)) {
      // 52:25 write of 'tile' [pad(2)] (shared): sm_90 wavefronts 1; DMM congestion 1
      // 52:48 read of 'in' [raw] (global): sm_90 sectors 1..3 (mean 2.64), lines 1..2 (mean 1.41); UMM groups 1..2 (mean 1.82)
      tile[tile_layout.offset(ty + 8 * k, tx)] = in[r * 170 + c];
    }
  }
  __syncthreads();
  for (Index k = 0; k < 4; ++k) {
    Index r = bx * 32 + ty + 8 * k;
    Index c = by * 32 + tx;
    if ((r < C) && (c < R)) {
      // 58:25 write of 'out' [raw] (global): sm_90 sectors 2..3 (mean 2.82), lines 1..2 (mean 1.46); UMM groups 1..2 (mean 1.91)
      // 58:37 read of 'tile' [pad(2)] (shared): sm_90 wavefronts 1; DMM congestion 2
      out[r * 250 + c] = tile[tile_layout.offset(tx, ty + 8 * k)];
    }
  }
}




__global__ void __launch_bounds__(256) transpose_i8(const std::int8_t *in, std::int8_t *out) {
  using Index = int;
  constexpr Index R = 250; // param
  constexpr Index C = 170; // param
  const Index tx = static_cast<Index>(threadIdx.x);
  const Index ty = static_cast<Index>(threadIdx.y);
  const Index bx = static_cast<Index>(blockIdx.x);
  const Index by = static_cast<Index>(blockIdx.y);
  __shared__ std::int8_t tile[1024]; // layout xor of [32][32] (analysis/Layout.h); chosen by layout auto: sm_90 wavefronts 2860, raw 12210
  constexpr bankwise::XorLayout<32> tile_layout{};
  for (Index k = 0; k < 4; ++k) {
    Index r = by * 32 + ty + 8 * k;
    Index c = bx * 32 + tx;
    if ((r < R) && (c < C)) {
      // 68:25 write of 'tile' [xor] (shared): sm_90 wavefronts 1; DMM congestion 1
      // 68:48 read of 'in' [raw] (global): sm_90 sectors 1..2 (mean 1.82), lines 1..2 (mean 1.21); UMM groups 1..2 (mean 1.82)
      tile[tile_layout.offset(ty + 8 * k, tx)] = in[r * 170 + c];
    }
  }
  __syncthreads();
  for (Index k = 0; k < 4; ++k) {
    Index r = bx * 32 + ty + 8 * k;
    Index c = by * 32 + tx;
    if ((r < C) && (c < R)) {
      // 74:25 write of 'out' [raw] (global): sm_90 sectors 1..2 (mean 1.91), lines 1..2 (mean 1.23); UMM groups 1..2 (mean 1.91)
      // 74:37 read of 'tile' [xor] (shared): sm_90 wavefronts 1; DMM congestion 1
      out[r * 250 + c] = tile[tile_layout.offset(tx, ty + 8 * k)];
    }
  }
}











































































































































































































































































































































































































































































































































































































