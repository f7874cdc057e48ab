// Seed 001: the three pass kernels of a global `schedule colored` copy and
// the launch function that runs them.

#include "codegen/detail/Emit.h"

namespace bankwise::codegen::detail {

//===-- Seed 001: the scheduled permutation of global memory ---------------------===//

std::string hmmCostText(const HmmPassCost &C) {
  return fmt::format("largest DMM congestion {} (steps 1, 3, 4); per request at most {} sectors / {} lines / {} "
                     "UMM groups; {} requests, {} sectors; s and d loads {} sectors",
                     C.MaxSharedCongestion, C.MaxSectorsPerRequest, C.MaxLinesPerRequest, C.MaxUmmGroups,
                     C.GlobalRequests, C.Sectors, C.IndexSectors);
}

std::string KernelEmitter::hmmDevice() {
  Out.clear();
  const HmmLowering &L = *F.Hmm;
  const HmmShape &Sh = L.Shape;
  const std::string T = devType(F.array(hmmSrc()).Decl->Elem);
  const std::uint64_t N = L.Schedule->size();
  line(0, fmt::format("// Kernel '{}' ({}:{}:{}): schedule colored on a copy between global arrays, {}[f(t)] = {}[g(t)]",
                      F.K.Name, Opts.SourceName, F.K.Loc.Line, F.K.Loc.Col, hmmDst(), hmmSrc()));
  line(0, fmt::format("// for {} threads, runs as seed 001's scheduled offline permutation (Secs. V-VII): {}[P(i)] = {}[i]",
                      N, hmmDst(), hmmSrc()));
  line(0, fmt::format("// with P(g(t)) = f(t), over a {} x {} row-major matrix (R x C, chooseSm90Shape), strips of {} columns",
                      Sh.Rows, Sh.Cols, Sh.StripCols));
  line(0, fmt::format("// ({} bytes: one 32-byte sector per strip row), w = {} banks. Schedule: scheduleHmmPermutation, its",
                      Sh.StripCols * static_cast<std::uint32_t>(L.ElemBytes), Sh.Banks));
  line(0, fmt::format("// s and d planes in table {}. Three passes, one block per row (strip), each seed 001's row-wise",
                      F.HmmTable));
  line(0, "// permutation: (1) buf[j] <- src[addr(j)] (coalesced), (2) s[j], d[j] (coalesced 16-bit loads),");
  line(0, "// (3) buf[d[j]] <- buf[s[j]] through registers (conflict-free: seed 003's schedule of the block),");
  line(0, "// (4) dst[addr(j)] <- buf[j] (coalesced). Passes 1 and 2 run in place (src == dst): every block reads");
  line(0, "// its whole row or strip before it writes the same addresses back, so src and dst are not __restrict__.");
  line(0, fmt::format("// As written (one scatter kernel), the model predicts: {}.",
                      [&] {
                        std::vector<std::string> Parts;
                        for (const AccessSiteReport &S : Rep.Sites)
                          Parts.push_back(fmt::format("{} of '{}' sectors {}", S.IsWrite ? "write" : "read", S.Array,
                                                      S.DataDependent ? std::string("data-dependent") : S.Sectors.str()));
                        return fmt::format("{}", fmt::join(Parts, ", "));
                      }()));
  line(0, "");
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    const HmmPassPlan &P = L.Passes[static_cast<std::size_t>(Pass)];
    const bool Strip = P.Cost.Kind == HmmPassKind::Strip;
    const std::uint32_t Words = P.Cost.BlockWords;
    const bool Dyn = passDynamic(Pass);
    line(0, fmt::format("// Pass {} ({}): {} -> {}{}, {} blocks of {} words ({}), {} threads, {} word{} per thread, {} bytes "
                        "of shared memory{}.",
                        Pass, Strip ? "column-wise, by strips" : "row-wise", Pass == 0 ? hmmSrc() : hmmDst(), hmmDst(),
                        Pass == 0 ? "" : " in place", P.Cost.Blocks, Words,
                        Strip ? fmt::format("{} rows x {} columns", Sh.Rows, Sh.StripCols) : "one row", P.Threads,
                        P.PerThread, P.PerThread == 1 ? "" : "s", passSmem(Pass), Dyn ? " (dynamic, opted in by the launch)" : ""));
    line(0, fmt::format("// Predicted (hmmPassCosts): {}.", hmmCostText(P.Cost)));
    line(0, fmt::format("__global__ void __launch_bounds__({}) {}(const {} *src, {} *dst, const std::uint16_t *s, "
                        "const std::uint16_t *d) {{",
                        P.Threads, passName(Pass), T, T));
    line(1, fmt::format("constexpr unsigned Words = {}; // words per block", Words));
    line(1, fmt::format("constexpr unsigned long long Cols = {}; // C", Sh.Cols));
    if (Dyn) {
      line(1, fmt::format("extern __shared__ __align__(16) unsigned char bw_smem[]; // {} bytes, opted in by the launch",
                          passSmem(Pass)));
      line(1, fmt::format("{} *const {} = reinterpret_cast<{} *>(bw_smem);", T, L.BufferName, T));
    } else {
      line(1, fmt::format("__shared__ {} {}[Words];", T, L.BufferName));
    }
    line(1, "const unsigned bw_blk = blockIdx.x;");
    line(1, "const std::uint16_t *const bw_s = s + static_cast<unsigned long long>(bw_blk) * Words;");
    line(1, "const std::uint16_t *const bw_d = d + static_cast<unsigned long long>(bw_blk) * Words;");
    line(1, fmt::format("{} bw_v[{}];", T, P.PerThread));
    const bool Guard = Words % P.Threads != 0;
    const std::string Addr = fmt::format("bankwise::hmmAddress<{}, {}>(bw_blk, j, Cols)", Strip ? "true" : "false",
                                         Sh.StripCols);
    auto Loop = [&](const std::string &What, const std::vector<std::pair<int, std::string>> &Body) {
      line(1, "// " + What);
      line(1, "#pragma unroll");
      line(1, fmt::format("for (unsigned k = 0; k < {}; ++k) {{", P.PerThread));
      line(2, fmt::format("const unsigned j = threadIdx.x + k * {}u;", P.Threads));
      int In = 2;
      if (Guard) {
        line(2, "if (j < Words) {");
        In = 3;
      }
      for (const auto &[Site, Stmt] : Body) {
        if (Site >= 0)
          line(In, "// " + siteComment(P.Sites[static_cast<std::size_t>(Site)], F));
        line(In, Stmt);
      }
      if (Guard)
        line(2, "}");
      line(1, "}");
    };
    Loop("(1) the block's row (strip) into shared memory, coalesced",
         {{HmmInRead, fmt::format("bw_v[k] = src[{}];", Addr)},
          {HmmBufWrite, fmt::format("{}[j] = bw_v[k];", L.BufferName)}});
    line(1, "__syncthreads();");
    Loop("(2) and (3): read the schedule, gather buf[s[j]] into registers",
         {{HmmSRead, "const unsigned bw_from = bw_s[j];"},
          {HmmBufGather, fmt::format("bw_v[k] = {}[bw_from];", L.BufferName)}});
    line(1, "__syncthreads();");
    Loop("(3): scatter to buf[d[j]]: buf[d[j]] <- old buf[s[j]], every warp on distinct banks",
         {{HmmDRead, "const unsigned bw_to = bw_d[j];"},
          {HmmBufScatter, fmt::format("{}[bw_to] = bw_v[k];", L.BufferName)}});
    line(1, "__syncthreads();");
    Loop("(4) the permuted row (strip) back to global memory, coalesced",
         {{HmmBufRead, fmt::format("bw_v[k] = {}[j];", L.BufferName)},
          {HmmOutWrite, fmt::format("dst[{}] = bw_v[k];", Addr)}});
    line(0, "}");
    line(0, "");
  }
  return Out;
}

std::string KernelEmitter::hmmLaunch() const {
  const HmmLowering &L = *F.Hmm;
  const std::uint64_t N = L.Schedule->size();
  std::string S = fmt::format("// Seed 001's launch sequence for '{}': three kernels on one stream, each after the previous.\n",
                              F.K.Name);
  S += fmt::format("cudaError_t {}({}) {{\n", launchName(), apiParams(false));
  std::vector<std::string> Checks;
  for (const ArrayPlan &A : F.Arrays)
    if (A.isApiParam())
      Checks.push_back(fmt::format("{}_count != {}", A.Name, A.footprint()));
  if (!Checks.empty())
    S += fmt::format("  if ({})\n    return cudaErrorInvalidValue;\n", fmt::join(Checks, " || "));
  S += "  if (const cudaError_t Err = load_tables(); Err != cudaSuccess)\n    return Err;\n";
  const std::string Src = F.array(hmmSrc()).Name, Dst = F.array(hmmDst()).Name;
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    const HmmPassPlan &P = L.Passes[static_cast<std::size_t>(Pass)];
    const bool Dyn = passDynamic(Pass);
    S += fmt::format("  // Pass {} ({}): {} -> {}{}. Predicted: {}.\n", Pass,
                     P.Cost.Kind == HmmPassKind::Strip ? "strips" : "rows", Pass == 0 ? Src : Dst, Dst,
                     Pass == 0 ? "" : " in place", hmmCostText(P.Cost));
    if (Dyn)
      S += fmt::format("  if (const cudaError_t Err = cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {});\n"
                       "      Err != cudaSuccess)\n    return Err;\n",
                       passName(Pass), passSmem(Pass));
    S += fmt::format("  {}<<<dim3({}, 1, 1), dim3({}, 1, 1), {}, stream>>>({}, {}, bw_dev_table_{} + {}ULL, "
                     "bw_dev_table_{} + {}ULL);\n",
                     passName(Pass), P.Cost.Blocks, P.Threads, Dyn ? passSmem(Pass) : 0, Pass == 0 ? Src : Dst, Dst,
                     F.HmmTable, 2 * static_cast<std::uint64_t>(Pass) * N, F.HmmTable,
                     (2 * static_cast<std::uint64_t>(Pass) + 1) * N);
    if (Pass + 1 < HmmSchedule::NumPasses)
      S += "  if (const cudaError_t Err = cudaGetLastError(); Err != cudaSuccess)\n    return Err;\n";
  }
  S += "  return cudaGetLastError();\n}\n";
  return S;
}


} // namespace bankwise::codegen::detail
