#include "analysis/passes/ColoredSchedule.h"

#include "analysis/models/MemoryModel.h"
#include "analysis/passes/PermutationTables.h"
#include "ir/Eval.h"
#include "support/Diagnostic.h"
#include "support/Parallel.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <numeric>

namespace bankwise {

namespace {

/// Evaluates index expressions of kernel K thread by thread; array reads are
/// allowed only of arrays that hold a permutation. The hooks are built once
/// and read the current thread, since this runs for every thread.
class ThreadIndexer {
public:
  ThreadIndexer(const ir::Program &Prog, const ir::Kernel &K, PermutationTables &Perms) {
    const ir::Geometry &G = K.Geo;
    const std::int64_t Tpb = G.threadsPerBlock();
    const std::int64_t Warp = Prog.Mach ? Prog.Mach->warpSize() : 32;
    H.Var = [&Prog](const ir::VarRef &V) -> std::optional<std::int64_t> {
      if (const ir::Param *P = Prog.findParam(V.Name))
        return P->Value;
      return std::nullopt;
    };
    H.BuiltinValue = [this, &G, Tpb, Warp](ir::Builtin B) -> std::optional<std::int64_t> {
      const std::int64_t Block = T / Tpb, Local = T % Tpb;
      switch (B) {
      case ir::Builtin::Tid:
        return T;
      case ir::Builtin::Lane:
        return Local % Warp;
      case ir::Builtin::Warp:
        return Local / Warp;
      case ir::Builtin::Tx:
        return Local % G.BlockDim[0];
      case ir::Builtin::Ty:
        return Local / G.BlockDim[0] % G.BlockDim[1];
      case ir::Builtin::Tz:
        return Local / (G.BlockDim[0] * G.BlockDim[1]);
      case ir::Builtin::Bx:
        return Block % G.GridDim[0];
      case ir::Builtin::By:
        return Block / G.GridDim[0] % G.GridDim[1];
      case ir::Builtin::Bz:
        return Block / (G.GridDim[0] * G.GridDim[1]);
      }
      return std::nullopt;
    };
    auto Lookup = [](const Permutation &P, std::int64_t X) -> std::optional<std::int64_t> {
      if (X < 0 || static_cast<std::uint64_t>(X) >= P.size())
        return std::nullopt;
      return static_cast<std::int64_t>(P(static_cast<std::uint64_t>(X)));
    };
    H.Perm = [&Perms, Lookup](const std::string &Name, bool Inv, std::int64_t X) {
      return Lookup(Perms.get(Name, Inv), X);
    };
    H.Read = [&Prog, &K, &Perms, Lookup](const std::string &Name,
                                         const std::vector<std::int64_t> &Idx)
        -> std::optional<std::int64_t> {
      const ir::Array *A = Prog.findArray(K, Name);
      if (!A || !A->Holds || Idx.size() != 1)
        return std::nullopt;
      return Lookup(Perms.get(A->Holds->Perm, A->Holds->Inverse), Idx[0]);
    };
  }

  /// A function of the thread for the common index forms (tid, literals,
  /// + - *, permutations and holds tables of those), with the checks of
  /// evaluate; nullopt for the rest, which `at` interprets.
  using Compiled = std::function<std::optional<std::int64_t>(std::int64_t)>;
  static std::optional<Compiled> compile(const ir::Expr &E, const ir::Program &Prog,
                                         const ir::Kernel &K, PermutationTables &Perms) {
    if (const auto *B = E.as<ir::BuiltinRef>(); B && B->Which == ir::Builtin::Tid)
      return Compiled([](std::int64_t T) { return std::optional<std::int64_t>(T); });
    if (const auto *L = E.as<ir::IntLit>()) {
      const std::int64_t V = L->Value;
      return Compiled([V](std::int64_t) { return std::optional<std::int64_t>(V); });
    }
    auto Table = [](const Permutation &P, Compiled Arg) {
      return Compiled([&P, Arg](std::int64_t T) -> std::optional<std::int64_t> {
        const auto X = Arg(T);
        if (!X || *X < 0 || static_cast<std::uint64_t>(*X) >= P.size())
          return std::nullopt;
        return static_cast<std::int64_t>(P(static_cast<std::uint64_t>(*X)));
      });
    };
    if (const auto *P = E.as<ir::PermApply>()) {
      auto Arg = compile(*P->Arg, Prog, K, Perms);
      if (!Arg)
        return std::nullopt;
      return Table(Perms.get(P->Perm, P->Inverse), *Arg);
    }
    if (const auto *R = E.as<ir::ArrayRead>()) {
      const ir::Array *A = Prog.findArray(K, R->Array);
      if (!A || !A->Holds || R->Indices.size() != 1)
        return std::nullopt;
      auto Arg = compile(R->Indices[0], Prog, K, Perms);
      if (!Arg)
        return std::nullopt;
      return Table(Perms.get(A->Holds->Perm, A->Holds->Inverse), *Arg);
    }
    if (const auto *B = E.as<ir::Binary>();
        B && (B->Op == ir::BinaryOp::Add || B->Op == ir::BinaryOp::Sub || B->Op == ir::BinaryOp::Mul)) {
      auto L = compile(*B->Lhs, Prog, K, Perms), R = compile(*B->Rhs, Prog, K, Perms);
      if (!L || !R)
        return std::nullopt;
      const ir::BinaryOp Op = B->Op;
      return Compiled([L = *L, R = *R, Op](std::int64_t T) -> std::optional<std::int64_t> {
        const auto X = L(T), Y = R(T);
        if (!X || !Y)
          return std::nullopt;
        const ir::EvalResult V = ir::applyBinary(Op, *X, *Y);
        return V.ok() ? std::optional<std::int64_t>(V.Value) : std::nullopt;
      });
    }
    return std::nullopt;
  }

  /// The value of E for thread Thread (flat id); a located UserError when E
  /// cannot be computed before the kernel runs.
  std::int64_t at(const ir::Expr &E, std::int64_t Thread) {
    T = Thread;
    const ir::EvalResult R = ir::evaluate(E, H);
    if (!R.ok())
      throw UserError(R.Loc.Line ? R.Loc : SourceLoc(E.Loc),
                      fmt::format("schedule colored needs indices it can compute "
                                  "before the kernel runs: {} (thread tid = {})",
                                  R.Message, T));
    return R.Value;
  }

private:
  ir::EvalHooks H;
  std::int64_t T = 0;
};


/// A permutation table as an index reads it: P(x), P^-1(x) (Inverse), or
/// an array that `holds` one.
struct TableRef {
  std::string Name;
  bool Inverse = false;
};

/// E as tables applied to tid, outermost first (P(Q(tid)) gives P, Q; tid
/// alone none); nullopt for any other form.
std::optional<std::vector<TableRef>> tableChain(const ir::Expr &E, const ir::Program &Prog,
                                                const ir::Kernel &K) {
  std::vector<TableRef> Chain;
  for (const ir::Expr *Cur = &E;;) {
    if (const auto *B = Cur->as<ir::BuiltinRef>(); B && B->Which == ir::Builtin::Tid)
      return Chain;
    if (const auto *P = Cur->as<ir::PermApply>()) {
      Chain.push_back({P->Perm, P->Inverse});
      Cur = &*P->Arg;
    } else if (const auto *R = Cur->as<ir::ArrayRead>()) {
      const ir::Array *A = Prog.findArray(K, R->Array);
      if (!A || !A->Holds || R->Indices.size() != 1)
        return std::nullopt;
      Chain.push_back({A->Holds->Perm, A->Holds->Inverse});
      Cur = &R->Indices[0];
    } else {
      return std::nullopt;
    }
  }
}

/// Adds to Sites the warps of pass Pass's regular steps (1), (2) and (4),
/// whose addresses are a closed form of the block (see hmmPassPlans).
/// Block Blk's addresses are block 0's moved by Blk * blockStride words (and
/// the s and d loads' by Blk * words); costs are invariant under a move by
/// a multiple of Align = lcm(w, 128 / element bytes) elements (banks,
/// address groups, sectors and lines all repeat). So blocks Blk and
/// Blk + Period cost the same, and the first Period blocks, each counted
/// once per block of its residue class, give every block's figures.
void addRegularSteps(const HmmLowering &L, int Pass, std::vector<AccessSiteReport> &Sites) {
  const HmmSchedule &Sched = *L.Schedule;
  const std::int64_t W = L.Shape.Banks, Eb = L.ElemBytes;
  const std::uint64_t N = Sched.size();
  const std::uint32_t Words = Sched.blockWords(Pass), Blocks = Sched.numBlocks(Pass);
  auto PeriodOf = [&](std::uint64_t Stride, std::int64_t ElemB) {
    const std::uint64_t Align = std::lcm<std::uint64_t>(static_cast<std::uint64_t>(W),
                                                        static_cast<std::uint64_t>(128 / ElemB));
    return Align / std::gcd(Stride % Align, Align);
  };
  const std::uint64_t Period =
      std::lcm(PeriodOf(Sched.blockStride(Pass), Eb), PeriodOf(Words, 2));
  std::vector<Address> Lanes(static_cast<std::size_t>(W));
  auto Add = [&](AccessSiteReport &S, std::int64_t ElemB, bool Shared, std::int64_t Times) {
    const WarpAccessCosts C = warpAccessCosts(Lanes, W, ElemB, Shared);
    S.Congestion.add(C.Congestion, Times);
    S.Groups.add(C.Groups, Times);
    if (Shared) {
      S.Wavefronts.add(C.Wavefronts, Times);
    } else {
      S.Sectors.add(C.Sectors, Times);
      S.Lines.add(C.Lines, Times);
    }
  };
  for (std::uint32_t B = 0; B < std::min<std::uint64_t>(Blocks, Period); ++B) {
    const std::int64_t Times = static_cast<std::int64_t>((Blocks - B + Period - 1) / Period);
    const std::uint64_t Base = std::uint64_t(B) * Words;
    for (std::uint32_t J0 = 0; J0 < Words; J0 += static_cast<std::uint32_t>(W)) {
      for (std::int64_t I = 0; I < W; ++I)
        Lanes[static_cast<std::size_t>(I)] =
            static_cast<Address>(Sched.address(Pass, B, J0 + static_cast<std::uint32_t>(I)));
      Add(Sites[HmmInRead], Eb, false, Times);
      Add(Sites[HmmOutWrite], Eb, false, Times);
      for (std::int64_t I = 0; I < W; ++I)
        Lanes[static_cast<std::size_t>(I)] = static_cast<Address>(J0 + I);
      Add(Sites[HmmBufWrite], Eb, true, Times);
      Add(Sites[HmmBufRead], Eb, true, Times);
      // s and d: entries of the one 6n-entry table, plane 2 * Pass and 2 * Pass + 1.
      for (int Plane = 0; Plane < 2; ++Plane) {
        for (std::int64_t I = 0; I < W; ++I)
          Lanes[static_cast<std::size_t>(I)] =
              static_cast<Address>((2 * std::uint64_t(Pass) + std::uint64_t(Plane)) * N + Base + J0 +
                                   static_cast<std::uint64_t>(I));
        Add(Sites[Plane ? HmmDRead : HmmSRead], 2, false, Times);
      }
    }
  }
}

/// Adds to Sites the warps of step (3), the schedule's own s and d, for
/// blocks [FirstBlock, EndBlock) of pass Pass: one model evaluation per
/// warp, since these patterns are the permutation's and do not repeat.
/// Congestion, groups and wavefronts of a warp are at most 32, so they are
/// counted by value and added to the sites once per value.
void addScheduleSteps(const HmmLowering &L, int Pass, std::uint32_t FirstBlock, std::uint32_t EndBlock,
                      std::vector<AccessSiteReport> &Sites) {
  const HmmSchedule &Sched = *L.Schedule;
  const std::int64_t W = L.Shape.Banks, Eb = L.ElemBytes;
  const std::uint32_t Words = Sched.blockWords(Pass);
  const bool Words32 = W == 32 && Eb == 4; // sharedWordWarpCosts' case
  std::vector<Address> Lanes(static_cast<std::size_t>(W));
  for (int Plane = 0; Plane < 2; ++Plane) {
    const std::span<const std::uint16_t> Table = Plane ? Sched.d(Pass) : Sched.s(Pass);
    AccessSiteReport &S = Sites[Plane ? HmmBufScatter : HmmBufGather];
    std::array<std::int64_t, 33> Congestion{}, Groups{}, Wavefronts{};
    for (std::uint64_t At = std::uint64_t(FirstBlock) * Words; At < std::uint64_t(EndBlock) * Words;
         At += static_cast<std::uint64_t>(W)) {
      WarpAccessCosts C;
      if (Words32) {
        C = sharedWordWarpCosts(Table.subspan(At).first<32>());
      } else {
        for (std::int64_t I = 0; I < W; ++I)
          Lanes[static_cast<std::size_t>(I)] = Table[At + static_cast<std::uint64_t>(I)];
        C = warpAccessCosts(Lanes, W, Eb, true);
      }
      if (C.Congestion <= 32 && C.Groups <= 32 && C.Wavefronts <= 32) {
        ++Congestion[static_cast<std::size_t>(C.Congestion)];
        ++Groups[static_cast<std::size_t>(C.Groups)];
        ++Wavefronts[static_cast<std::size_t>(C.Wavefronts)];
      } else {
        S.Congestion.add(C.Congestion);
        S.Groups.add(C.Groups);
        S.Wavefronts.add(C.Wavefronts);
      }
    }
    for (std::size_t V = 0; V <= 32; ++V) {
      const auto X = static_cast<std::int64_t>(V);
      if (Congestion[V])
        S.Congestion.add(X, Congestion[V]);
      if (Groups[V])
        S.Groups.add(X, Groups[V]);
      if (Wavefronts[V])
        S.Wavefronts.add(X, Wavefronts[V]);
    }
  }
}

/// The access sites of the three pass kernels codegen emits, warp by warp
/// (a warp holds 32 consecutive words j of one block: blocks are whole
/// warps, since w divides C and R * StripCols). Steps: (1) global read of
/// In at addr(j), shared write at j; (2) global reads of s and d; (3) shared
/// read at s[j], shared write at d[j] (one buffer, through registers);
/// (4) shared read at j, global write of Out at addr(j).
std::vector<HmmPassPlan> hmmPassPlans(const HmmLowering &L, const std::string &Src,
                                      const std::string &Dst, const SourceLoc &ReadLoc,
                                      const SourceLoc &StmtLoc) {
  const HmmSchedule &Sched = *L.Schedule;
  const std::int64_t Eb = L.ElemBytes;
  std::vector<HmmPassPlan> Out;
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    HmmPassPlan P;
    const std::uint32_t Words = Sched.blockWords(Pass), Blocks = Sched.numBlocks(Pass);
    P.Threads = std::min<std::uint32_t>(1024, Words);
    P.PerThread = (Words + P.Threads - 1) / P.Threads;
    auto Site = [&](const SourceLoc &Loc, const std::string &Array, ir::MemSpace Space, bool Write,
                    std::int64_t Bytes) {
      AccessSiteReport S;
      S.Loc = Loc;
      S.Array = Array;
      S.Space = Space;
      S.IsWrite = Write;
      S.ElemBytes = Bytes;
      S.Layout = "raw";
      return S;
    };
    P.Sites = {Site(Pass == 0 ? ReadLoc : StmtLoc, Pass == 0 ? Src : Dst, ir::MemSpace::Global, false, Eb),
               Site(StmtLoc, L.BufferName, ir::MemSpace::Shared, true, Eb),
               Site(StmtLoc, L.planeName(Pass, false), ir::MemSpace::Global, false, 2),
               Site(StmtLoc, L.BufferName, ir::MemSpace::Shared, false, Eb),
               Site(StmtLoc, L.planeName(Pass, true), ir::MemSpace::Global, false, 2),
               Site(StmtLoc, L.BufferName, ir::MemSpace::Shared, true, Eb),
               Site(StmtLoc, L.BufferName, ir::MemSpace::Shared, false, Eb),
               Site(StmtLoc, Dst, ir::MemSpace::Global, true, Eb)};
    addRegularSteps(L, Pass, P.Sites);
    // Step (3) in chunks of blocks over the cores, each chunk with its own
    // sites; the chunks' figures merge in order (min, max, count and
    // integer sums), so any thread count gives the same report.
    const std::uint32_t Chunks = std::min<std::uint32_t>(Blocks, 64);
    std::vector<std::vector<AccessSiteReport>> Parts(Chunks, P.Sites); // step (3)'s sites still empty
    parallelFor(Chunks, threadCount(), [&](std::size_t Chunk, unsigned) {
      addScheduleSteps(L, Pass, static_cast<std::uint32_t>(Blocks * Chunk / Chunks),
                       static_cast<std::uint32_t>(Blocks * (Chunk + 1) / Chunks), Parts[Chunk]);
    });
    for (const std::vector<AccessSiteReport> &Part : Parts)
      for (int I : {HmmBufGather, HmmBufScatter})
        for (auto Stat : {&AccessSiteReport::Congestion, &AccessSiteReport::Groups,
                          &AccessSiteReport::Wavefronts})
          (P.Sites[static_cast<std::size_t>(I)].*Stat).merge(Part[static_cast<std::size_t>(I)].*Stat);
    for (AccessSiteReport &S : P.Sites) {
      S.WarpExecutions = S.Congestion.Count;
      S.ThreadAccesses = static_cast<std::int64_t>(Sched.size());
    }
    // The pass's hmmPassCosts line, from the same warps (no second walk; a
    // test compares the two): shared congestion over the buffer's four
    // sites, requests, sectors, lines and groups over the data's load and
    // store, sectors of the s and d loads.
    HmmPassCost &C = P.Cost;
    C.Kind = HmmSchedule::kind(Pass);
    C.Blocks = Blocks;
    C.BlockWords = Words;
    for (int I : {HmmBufWrite, HmmBufGather, HmmBufScatter, HmmBufRead})
      C.MaxSharedCongestion = std::max(C.MaxSharedCongestion, P.Sites[I].Congestion.Max);
    for (int I : {HmmInRead, HmmOutWrite}) {
      const AccessSiteReport &S = P.Sites[I];
      C.GlobalRequests += static_cast<std::uint64_t>(S.Sectors.Count);
      C.Sectors += static_cast<std::uint64_t>(S.Sectors.Sum);
      C.MaxSectorsPerRequest = std::max(C.MaxSectorsPerRequest, S.Sectors.Max);
      C.MaxLinesPerRequest = std::max(C.MaxLinesPerRequest, S.Lines.Max);
      C.MaxUmmGroups = std::max(C.MaxUmmGroups, S.Groups.Max);
    }
    C.IndexSectors = static_cast<std::uint64_t>(P.Sites[HmmSRead].Sectors.Sum + P.Sites[HmmDRead].Sectors.Sum);
    Out.push_back(std::move(P));
  }
  return Out;
}

} // namespace

ColoredScheduling applyColoredSchedules(const ir::Program &Input) {
  ColoredScheduling Result{Input, {}};
  ir::Program &Prog = Result.Program;
  std::vector<ColoredScheduleReport> &Out = Result.Reports;
  for (ir::Kernel &K : Prog.Kernels) {
    if (K.Schedule != ir::KernelSchedule::Colored)
      continue;
    const SourceLoc KLoc = K.Loc;
    auto Fail = [&](const SourceLoc &L, const std::string &Msg) {
      throw UserError(L, fmt::format("kernel '{}': {}", K.Name, Msg));
    };
    // The body: declarations of nothing else, and one copy.
    ir::Assign *Copy = nullptr;
    for (ir::Stmt &S : K.Body) {
      auto *A = S.as<ir::Assign>();
      if (!A || Copy)
        Fail(S.Loc, "schedule colored needs a body of exactly one copy "
                    "'dst[...] = src[...]' between shared arrays");
      Copy = A;
    }
    if (!Copy)
      Fail(KLoc, "schedule colored needs a body of one copy 'dst[...] = src[...]'");
    auto *Dst = std::get_if<ir::ArrayRead>(&Copy->Target);
    auto *Src = Copy->Value.as<ir::ArrayRead>();
    const SourceLoc CopyLoc = K.Body.front().Loc;
    if (!Dst || !Src)
      Fail(CopyLoc, "schedule colored needs a copy from one array element to another "
                    "(between shared arrays, or between global arrays)");
    const ir::Array *DA = Prog.findArray(K, Dst->Array);
    const ir::Array *SA = Prog.findArray(K, Src->Array);
    const std::int64_t N = K.Geo.GridDim[0] * K.Geo.GridDim[1] * K.Geo.GridDim[2] *
                           K.Geo.threadsPerBlock();
    // Global to global: seed 001's scheduled permutation of global memory.
    HmmShape Shape;
    const bool Global = SA && DA && SA->Space == ir::MemSpace::Global &&
                        DA->Space == ir::MemSpace::Global;
    for (const ir::Array *A : {SA, DA}) {
      if (!A || (A->Space != (Global ? ir::MemSpace::Global : ir::MemSpace::Shared)) ||
          A->Shape.size() != 1)
        Fail(CopyLoc, "schedule colored copies between one-dimensional shared arrays "
                      "(seed 003) or between one-dimensional global arrays (seed 001)");
      if (A->numElements() != N)
        Fail(A->Loc, fmt::format("'{}' has {} elements; schedule colored moves one "
                                 "element per thread, and the kernel has {} threads",
                                 A->Name, A->numElements(), N));
    }
    if (Global) {
      if (SA == DA)
        Fail(CopyLoc, fmt::format("schedule colored on global memory needs two arrays: "
                                  "'{}' is both the source and the destination",
                                  SA->Name));
      if (Prog.Mach && Prog.Mach->Kind != ir::MachineKind::Target)
        Fail(KLoc, "schedule colored on global arrays plans seed 001's passes for a CUDA "
                   "target (sm_90); this program runs on a memory machine");
      if (Prog.Mach) {
        const auto Info = ir::targetInfo(Prog.Mach->Target);
        if (!Info || Info->MaxSharedPerBlock < static_cast<std::int64_t>(Sm90SharedBytesPerBlock))
          Fail(KLoc, fmt::format("schedule colored on global arrays uses sm_90's shape "
                                 "(227 KB of shared memory per block); target {} has {} bytes",
                                 Prog.Mach->Target, Info ? Info->MaxSharedPerBlock : 0));
      }
      for (const ir::Array *A : {SA, DA}) {
        if (ir::byteSize(A->Elem) != 4)
          Fail(A->Loc, fmt::format("schedule colored on global arrays moves 4-byte elements "
                                   "(f32, i32, u32 or a 4-byte vector such as u8x4): the sm_90 "
                                   "shape puts 8 of them, one 32-byte sector, in a strip row; "
                                   "'{}' is {} ({} bytes)",
                                   A->Name, ir::spelling(A->Elem), ir::byteSize(A->Elem)));
        if (A->Lay.Kind != ir::LayoutKind::Raw && A->Lay.Kind != ir::LayoutKind::Auto)
          Fail(A->Loc, fmt::format("schedule colored on global arrays needs row-major ('raw') "
                                   "arrays; '{}' has another layout",
                                   A->Name));
      }
      try {
        Shape = chooseSm90Shape(static_cast<std::uint64_t>(N));
        validateHmmShape(Shape, static_cast<std::uint64_t>(N));
      } catch (const UserError &E) {
        Fail(KLoc, fmt::format("schedule colored on global arrays: {} (of the powers "
                               "of two, 2^27 is the largest n with a shape)",
                               E.diagnostic().Message));
      }
      if (SA->Elem != DA->Elem)
        Fail(CopyLoc, fmt::format("schedule colored copies bits: '{}' is {} and '{}' is {}",
                                  SA->Name, ir::spelling(SA->Elem), DA->Name,
                                  ir::spelling(DA->Elem)));
    }
    const std::int64_t W = Global ? 32 : Prog.Mach ? Prog.Mach->warpSize() : 32;
    if (N % W != 0)
      Fail(KLoc, fmt::format("schedule colored needs the {} threads to fill whole "
                             "warps of {}",
                             N, W));
    // P(g(t)) = f(t), checked one-to-one.
    PermutationTables Perms(Prog);
    ThreadIndexer Indexer(Prog, K, Perms);
    std::vector<std::uint32_t> Map;
    const ir::Expr &GE = Src->Indices.front(), &FE = Dst->Indices.front();
    // Both indices tables of n entries applied to tid (b[P(tid)] = a[tid],
    // b[tid] = a[Q(tid)], or chains of those): each is a bijection of
    // 0..n-1, so the copy is one-to-one with no check, and Map = f o g^-1
    // is computed entry after entry, through the tables' inverses (closed
    // forms where they exist, cached in Perms).
    std::vector<const Permutation *> Steps;
    bool Direct = false;
    if (const auto GChain = tableChain(GE, Prog, K), FChain = tableChain(FE, Prog, K);
        GChain && FChain) {
      for (const TableRef &R : *GChain)
        Steps.push_back(&Perms.get(R.Name, !R.Inverse));
      for (auto It = FChain->rbegin(); It != FChain->rend(); ++It)
        Steps.push_back(&Perms.get(It->Name, It->Inverse));
      Direct = std::all_of(Steps.begin(), Steps.end(), [&](const Permutation *P) {
        return P->size() == static_cast<std::uint64_t>(N);
      });
    }
    // A global copy through one table (b[P(tid)] = a[tid]) is scheduled
    // from the table itself, not from a copy of it (n entries, 256 MB of
    // fresh pages at n = 2^26).
    const Permutation *Whole = Direct && Global && Steps.size() == 1 ? Steps.front() : nullptr;
    if (!Whole)
      Map.resize(static_cast<std::size_t>(N));
    if (Direct && !Whole) {
      for (std::uint64_t X = 0; X < static_cast<std::uint64_t>(N); ++X) {
        std::uint64_t V = X;
        for (const Permutation *P : Steps)
          V = (*P)(V);
        Map[X] = static_cast<std::uint32_t>(V);
      }
    } else if (!Direct) {
      // Compiled forms where the index has one (the interpreter reports any
      // thread they cannot compute, with its message and location).
      const auto GC = ThreadIndexer::compile(GE, Prog, K, Perms);
      const auto FC = ThreadIndexer::compile(FE, Prog, K, Perms);
      auto IndexOf = [&](const ir::Expr &E, const std::optional<ThreadIndexer::Compiled> &C,
                         std::int64_t T) {
        const std::optional<std::int64_t> V = C ? (*C)(T) : std::nullopt;
        return V ? *V : Indexer.at(E, T);
      };
      // Element X is read (written) by thread T alone: one bit per element;
      // the earlier thread is searched for only to name it in the error.
      std::vector<std::uint64_t> Read((static_cast<std::size_t>(N) + 63) / 64),
          Written((static_cast<std::size_t>(N) + 63) / 64);
      auto Claim = [&](std::int64_t X, std::vector<std::uint64_t> &Seen, const char *What,
                       const ir::Expr &E, const std::optional<ThreadIndexer::Compiled> &C,
                       std::int64_t T) {
        if (X < 0 || X >= N)
          Fail(E.Loc, fmt::format("thread tid = {} {} element {}, outside 0..{}", T, What, X, N - 1));
        std::uint64_t &Word = Seen[static_cast<std::size_t>(X) / 64];
        const std::uint64_t Bit = std::uint64_t(1) << (X % 64);
        if (Word & Bit) {
          std::int64_t Prev = 0;
          while (Prev < T && IndexOf(E, C, Prev) != X)
            ++Prev;
          Fail(E.Loc, fmt::format("schedule colored needs a one-to-one copy, but threads "
                                  "tid = {} and tid = {} both {} element {}",
                                  Prev, T, What, X));
        }
        Word |= Bit;
      };
      for (std::int64_t T = 0; T < N; ++T) {
        const std::int64_t G = IndexOf(GE, GC, T), F = IndexOf(FE, FC, T);
        Claim(G, Read, "reads", GE, GC, T);
        Claim(F, Written, "writes", FE, FC, T);
        Map[static_cast<std::size_t>(G)] = static_cast<std::uint32_t>(F);
      }
    }
    // Add P (as a list), S and D, and rewrite the copy.
    ColoredScheduleReport Rep;
    Rep.Kernel = K.Name;
    Rep.Loc = KLoc;
    Rep.Src = SA->Name;
    Rep.Dst = DA->Name;
    Rep.N = N;
    Rep.W = W;
    if (Global) {
      // Seed 001: the shape, the schedule and its costs; the kernel stays.
      auto L = std::make_shared<HmmLowering>();
      L->ElemBytes = ir::byteSize(SA->Elem);
      L->PlanePrefix = "colored_" + K.Name;
      L->Shape = Shape;
      L->Schedule = std::make_shared<const HmmSchedule>(
          Whole ? scheduleHmmPermutation(*Whole, L->Shape)
                : scheduleHmmPermutation(Direct ? Permutation::ofBijection(std::move(Map))
                                                : Permutation(std::move(Map)),
                                         L->Shape));
      L->Passes = hmmPassPlans(*L, SA->Name, DA->Name, Copy->Value.Loc, CopyLoc);
      Rep.Hmm = std::move(L);
      Out.push_back(std::move(Rep));
      continue;
    }
    Rep.PermName = "colored_" + K.Name + "_P";
    Rep.SrcName = "colored_" + K.Name + "_S";
    Rep.DstName = "colored_" + K.Name + "_D";
    ir::Permutation P;
    P.Name = Rep.PermName;
    P.Kind = ir::PermKind::List;
    P.ArgValues.assign(Map.begin(), Map.end());
    P.Size = N;
    P.Loc = KLoc;
    Prog.Perms.push_back(P);
    for (const auto &[Name, Kind] : {std::pair(Rep.SrcName, ir::PermKind::ScheduleSrc),
                                     std::pair(Rep.DstName, ir::PermKind::ScheduleDst)}) {
      ir::Permutation S;
      S.Name = Name;
      S.Kind = Kind;
      S.Base = Rep.PermName;
      S.Args = {ir::makeInt(W)};
      S.ArgValues = {W};
      S.Size = N;
      S.Loc = KLoc;
      Prog.Perms.push_back(S);
    }
    auto Apply = [&](const std::string &Perm, const SourceLoc &L) {
      ir::PermApply A;
      A.Perm = Perm;
      A.Arg = ir::Expr{ir::BuiltinRef{ir::Builtin::Tid}, ir::NodeLoc(L)};
      return ir::Expr{std::move(A), ir::NodeLoc(L)};
    };
    const SourceLoc SrcLoc = Src->Indices.front().Loc, DstLoc = Dst->Indices.front().Loc;
    Src->Indices.front() = Apply(Rep.SrcName, SrcLoc);
    Dst->Indices.front() = Apply(Rep.DstName, DstLoc);
    K.Schedule = ir::KernelSchedule::None;
    Out.push_back(Rep);
  }
  return Result;
}

} // namespace bankwise
