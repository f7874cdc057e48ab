// bankwise/tile_transpose.cuh: transpose of one Tile x Tile tile of a
// Rows x Cols row-major matrix through shared memory (the CUDA "coalesced
// transpose", seed 001 Sec. V / Lemma 5), for any shape: the edge tiles are
// guarded. A block of (Tile, BlockRows) threads moves the tile at block
// (TileRow, TileCol): reads in[TileRow*Tile + y][TileCol*Tile + x] row by
// row (coalesced), writes out[TileCol*Tile + y][TileRow*Tile + x] (coalesced),
// and reads the shared tile by columns, so its Layout decides the bank
// conflicts: RawLayout<Tile> has Tile-way conflicts, PadLayout<Tile, 1>,
// DiagonalLayout<Tile> and a RapLayout have none (expected, for RAP).
//
// Holes: T (element), Tile, BlockRows, Layout (a policy of layout.cuh), and
// the index type I.
#pragma once

#include "bankwise/layout.cuh"

namespace bankwise {

template <class T, int Tile, int BlockRows, class Layout, class I>
__device__ __forceinline__ void tileTranspose(const T *In, T *Out, I Rows, I Cols,
                                              I TileRow, I TileCol, T *Smem,
                                              const Layout &Lay) {
  const I X = static_cast<I>(threadIdx.x), Y = static_cast<I>(threadIdx.y);
#pragma unroll
  for (int K = 0; K < Tile; K += BlockRows) {
    const I R = TileRow * Tile + Y + K, C = TileCol * Tile + X;
    if (R < Rows && C < Cols)
      Smem[Lay.offset(Y + K, X)] = In[R * Cols + C];
  }
  __syncthreads();
#pragma unroll
  for (int K = 0; K < Tile; K += BlockRows) {
    const I R = TileCol * Tile + Y + K, C = TileRow * Tile + X;
    if (R < Cols && C < Rows)
      Out[R * Rows + C] = Smem[Lay.offset(X, Y + K)];
  }
}

} // namespace bankwise
