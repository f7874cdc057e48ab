#include "analysis/passes/ColoredSchedule.h"

#include "analysis/passes/PermutationTables.h"
#include "analysis/passes/detail/ScheduleKernels.h"
#include "ir/Eval.h"
#include "support/Diagnostic.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>

namespace bankwise {

using namespace schedule_kernels;

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

} // namespace

namespace {

/// A `schedule` kernel's copy `dst[f(tid)] = src[g(tid)]`, checked: what
/// every lowering needs of it.
struct ScheduledCopy {
  ir::Kernel *K = nullptr;
  bool Auto = false, Bits = false, Global = false;
  std::string How; ///< "schedule colored", for the messages
  SourceLoc KLoc, CopyLoc;
  ir::Assign *Copy = nullptr;
  ir::ArrayRead *Dst = nullptr, *Src = nullptr;
  const ir::Array *DA = nullptr, *SA = nullptr;
  std::int64_t N = 0; ///< elements and threads
  std::int64_t W = 0; ///< banks
  HmmShape Shape;     ///< seed 001's shape (global, colored)
  /// schedule auto: why colored does not apply (empty: it does).
  std::string WhyNotColored;

  [[noreturn]] void fail(const SourceLoc &L, const std::string &Msg) const {
    throw UserError(L, fmt::format("kernel '{}': {}", K->Name, Msg));
  }
  /// What rules colored out: an error, or for schedule auto a reason.
  void failColored(const SourceLoc &L, const std::string &Msg) {
    if (!Auto)
      fail(L, Msg);
    if (WhyNotColored.empty())
      WhyNotColored = Msg;
  }
};

/// K's body is one copy between two one-dimensional arrays of one element
/// per thread, both shared or both global (and what else the schedule
/// needs); throws UserError, located, otherwise.
ScheduledCopy checkCopy(const ir::Program &Prog, ir::Kernel &K) {
  ScheduledCopy C;
  C.K = &K;
  C.Auto = K.Schedule == ir::KernelSchedule::Auto;
  C.Bits = K.Schedule == ir::KernelSchedule::Bits;
  C.How = "schedule " + std::string(ir::spelling(K.Schedule));
  C.KLoc = K.Loc;
  const std::string &How = C.How;
  const bool Bits = C.Bits, Auto = C.Auto;
  // The body: declarations of nothing else, and one copy.
  for (ir::Stmt &S : K.Body) {
    auto *A = S.as<ir::Assign>();
    if (!A || C.Copy)
      C.fail(S.Loc, How + " needs a body of exactly one copy 'dst[...] = src[...]'" +
                        (Bits || Auto ? " between global arrays" : " between shared arrays"));
    C.Copy = A;
  }
  if (!C.Copy)
    C.fail(C.KLoc, How + " needs a body of one copy 'dst[...] = src[...]'");
  C.Dst = std::get_if<ir::ArrayRead>(&C.Copy->Target);
  C.Src = C.Copy->Value.as<ir::ArrayRead>();
  C.CopyLoc = K.Body.front().Loc;
  if (!C.Dst || !C.Src)
    C.fail(C.CopyLoc, How + " needs a copy from one array element to another "
                      "(between shared arrays, or between global arrays)");
  const ir::Array *DA = C.DA = Prog.findArray(K, C.Dst->Array);
  const ir::Array *SA = C.SA = Prog.findArray(K, C.Src->Array);
  const std::int64_t N = C.N = K.Geo.GridDim[0] * K.Geo.GridDim[1] * K.Geo.GridDim[2] * K.Geo.threadsPerBlock();
  // Global to global: seed 001's scheduled permutation of global memory.
  const bool Global = C.Global =
      SA && DA && SA->Space == ir::MemSpace::Global && DA->Space == ir::MemSpace::Global;
  if (Bits && !Global)
    C.fail(C.CopyLoc, "schedule bits moves a bit permutation between two one-dimensional global "
                      "arrays in one tiled pass; for shared arrays use schedule colored");
  if (Auto && !Global)
    C.fail(C.CopyLoc, "schedule auto chooses how to move a permutation between two one-dimensional global "
                      "arrays (scatter, gather, bits or colored); for shared arrays use schedule colored");
  for (const ir::Array *A : {SA, DA}) {
    if (!A || (A->Space != (Global ? ir::MemSpace::Global : ir::MemSpace::Shared)) || A->Shape.size() != 1)
      C.fail(C.CopyLoc, "schedule colored copies between one-dimensional shared arrays "
                        "(seed 003) or between one-dimensional global arrays (seed 001)");
    if (A->numElements() != N)
      C.fail(A->Loc, fmt::format("'{}' has {} elements; {} moves one "
                                 "element per thread, and the kernel has {} threads",
                                 A->Name, A->numElements(), How, N));
  }
  if (Global) {
    if (SA == DA)
      C.fail(C.CopyLoc, fmt::format("{} on global memory needs two arrays: "
                                    "'{}' is both the source and the destination",
                                    How, SA->Name));
    if (Prog.Mach && Prog.Mach->Kind != ir::MachineKind::Target)
      C.fail(C.KLoc, Bits ? "schedule bits on global arrays plans a kernel for a CUDA target (sm_90); "
                            "this program runs on a memory machine"
                     : Auto ? "schedule auto on global arrays weighs kernels for a CUDA target (sm_90); "
                              "this program runs on a memory machine"
                            : "schedule colored on global arrays plans seed 001's passes for a CUDA "
                              "target (sm_90); this program runs on a memory machine");
  }
  return C;
}

/// Whether seed 001's passes can move a global copy (failColored: an
/// error, or schedule auto's reason), and their shape.
void checkColoredApplies(const ir::Program &Prog, ScheduledCopy &C) {
  if (!C.Global || C.Bits)
    return;
  const ir::Array *SA = C.SA, *DA = C.DA;
  if (Prog.Mach) {
    const auto Info = ir::targetInfo(Prog.Mach->Target);
    if (!Info || Info->MaxSharedPerBlock < static_cast<std::int64_t>(Sm90SharedBytesPerBlock))
      C.failColored(C.KLoc, fmt::format("schedule colored on global arrays uses sm_90's shape "
                                        "(227 KB of shared memory per block); target {} has {} bytes",
                                        Prog.Mach->Target, Info ? Info->MaxSharedPerBlock : 0));
  }
  for (const ir::Array *A : {SA, DA}) {
    if (ir::byteSize(A->Elem) != 4 && ir::byteSize(A->Elem) != 8)
      C.failColored(A->Loc, fmt::format("schedule colored on global arrays moves 4- or 8-byte "
                                        "elements (f32, i32, u32, f64, i64, u64 or a vector of 4 or 8 "
                                        "bytes): the sm_90 shape puts 8 or 4 of them, one 32-byte "
                                        "sector, in a strip row, and keeps a warp's 32 indices in 32 "
                                        "banks; '{}' is {} ({} bytes)",
                                        A->Name, ir::spelling(A->Elem), ir::byteSize(A->Elem)));
    if (A->Lay.Kind != ir::LayoutKind::Raw && A->Lay.Kind != ir::LayoutKind::Auto)
      C.failColored(A->Loc, fmt::format("schedule colored on global arrays needs row-major ('raw') "
                                        "arrays; '{}' has another layout",
                                        A->Name));
  }
  try {
    C.Shape = chooseSm90Shape(static_cast<std::uint64_t>(C.N), static_cast<int>(ir::byteSize(SA->Elem)));
    validateHmmShape(C.Shape, static_cast<std::uint64_t>(C.N));
  } catch (const UserError &E) {
    int Largest = 0; // the largest power of two with a shape, for the message
    for (int Log = 40; Log > 0 && !Largest; --Log)
      try {
        chooseSm90Shape(std::uint64_t(1) << Log, static_cast<int>(ir::byteSize(SA->Elem)));
        Largest = Log;
      } catch (const UserError &) {
      }
    C.failColored(C.KLoc, fmt::format("schedule colored on global arrays: {}{}", E.diagnostic().Message,
                                      Largest ? fmt::format(" (of the powers of two, 2^{} is the largest n "
                                                            "with a shape for these elements)",
                                                            Largest)
                                              : std::string()));
  }
}

/// The copy's elements are one type, and its threads whole warps.
void checkElementsAndWarps(const ir::Program &Prog, ScheduledCopy &C) {
  if (C.Global && C.SA->Elem != C.DA->Elem)
    C.fail(C.CopyLoc, fmt::format("{} copies bits: '{}' is {} and '{}' is {}", C.How, C.SA->Name,
                                  ir::spelling(C.SA->Elem), C.DA->Name, ir::spelling(C.DA->Elem)));
  C.W = C.Global ? 32 : Prog.Mach ? Prog.Mach->warpSize() : 32;
  if (C.N % C.W != 0)
    C.fail(C.KLoc, fmt::format("{} needs the {} threads to fill whole "
                               "warps of {}",
                               C.How, C.N, C.W));
}

/// The copy's map P (b[P(i)] = a[i]): through the tables its indices apply
/// to tid where both are chains of them, else thread by thread, checked
/// one-to-one.
struct CopyMap {
  /// The tables of a direct map, in order (g's inverted, then f's).
  std::vector<TableRef> StepRefs;
  bool Direct = false;
  /// A global copy through one table: P is that table, Map stays empty.
  const Permutation *Whole = nullptr;
  std::vector<std::uint32_t> Map;
};

CopyMap copyMap(const ir::Program &Prog, const ScheduledCopy &C, PermutationTables &Perms) {
  CopyMap M;
  const ir::Kernel &K = *C.K;
  const std::int64_t N = C.N;
  // P(g(t)) = f(t), checked one-to-one.
  ThreadIndexer Indexer(Prog, K, Perms);
  const ir::Expr &GE = C.Src->Indices.front(), &FE = C.Dst->Indices.front();
  // Both indices tables of n entries applied to tid (b[P(tid)] = a[tid],
  // b[tid] = a[Q(tid)], or chains of those): each is a bijection of
  // 0..n-1, so the copy is one-to-one with no check, and Map = f o g^-1
  // is computed entry after entry, through the tables' inverses (closed
  // forms where they exist, cached in Perms).
  std::vector<const Permutation *> Steps;
  if (const auto GChain = tableChain(GE, Prog, K), FChain = tableChain(FE, Prog, K); GChain && FChain) {
    for (const TableRef &R : *GChain)
      M.StepRefs.push_back({R.Name, !R.Inverse});
    for (auto It = FChain->rbegin(); It != FChain->rend(); ++It)
      M.StepRefs.push_back(*It);
    for (const TableRef &R : M.StepRefs)
      Steps.push_back(&Perms.get(R.Name, R.Inverse));
    M.Direct = std::all_of(Steps.begin(), Steps.end(),
                           [&](const Permutation *P) { return P->size() == static_cast<std::uint64_t>(N); });
  }
  // A global copy through one table (b[P(tid)] = a[tid]) is scheduled
  // from the table itself, not from a copy of it (n entries, 256 MB of
  // fresh pages at n = 2^26).
  M.Whole = M.Direct && C.Global && Steps.size() == 1 ? Steps.front() : nullptr;
  if (M.Whole)
    return M;
  std::vector<std::uint32_t> &Map = M.Map;
  Map.resize(static_cast<std::size_t>(N));
  if (M.Direct) {
    for (std::uint64_t X = 0; X < static_cast<std::uint64_t>(N); ++X) {
      std::uint64_t V = X;
      for (const Permutation *P : Steps)
        V = (*P)(V);
      Map[X] = static_cast<std::uint32_t>(V);
    }
    return M;
  }
  // Compiled forms where the index has one (the interpreter reports any
  // thread they cannot compute, with its message and location).
  const auto GC = ThreadIndexer::compile(GE, Prog, K, Perms);
  const auto FC = ThreadIndexer::compile(FE, Prog, K, Perms);
  auto IndexOf = [&](const ir::Expr &E, const std::optional<ThreadIndexer::Compiled> &Cf, std::int64_t T) {
    const std::optional<std::int64_t> V = Cf ? (*Cf)(T) : std::nullopt;
    return V ? *V : Indexer.at(E, T);
  };
  // Element X is read (written) by thread T alone: one bit per element;
  // the earlier thread is searched for only to name it in the error.
  std::vector<std::uint64_t> Read((static_cast<std::size_t>(N) + 63) / 64),
      Written((static_cast<std::size_t>(N) + 63) / 64);
  auto Claim = [&](std::int64_t X, std::vector<std::uint64_t> &Seen, const char *What, const ir::Expr &E,
                   const std::optional<ThreadIndexer::Compiled> &Cf, std::int64_t T) {
    if (X < 0 || X >= N)
      C.fail(E.Loc, fmt::format("thread tid = {} {} element {}, outside 0..{}", T, What, X, N - 1));
    std::uint64_t &Word = Seen[static_cast<std::size_t>(X) / 64];
    const std::uint64_t Bit = std::uint64_t(1) << (X % 64);
    if (Word & Bit) {
      std::int64_t Prev = 0;
      while (Prev < T && IndexOf(E, Cf, Prev) != X)
        ++Prev;
      C.fail(E.Loc, fmt::format("{} needs a one-to-one copy, but threads "
                                "tid = {} and tid = {} both {} element {}",
                                C.How, Prev, T, What, X));
    }
    Word |= Bit;
  };
  for (std::int64_t T = 0; T < N; ++T) {
    const std::int64_t G = IndexOf(GE, GC, T), F = IndexOf(FE, FC, T);
    Claim(G, Read, "reads", GE, GC, T);
    Claim(F, Written, "writes", FE, FC, T);
    Map[static_cast<std::size_t>(G)] = static_cast<std::uint32_t>(F);
  }
  return M;
}

/// The pass's output as it is built: the program, the reports, and what is
/// added to the program once every kernel has been read (global copies
/// become three kernels each, put in place of the kernel).
struct ScheduleRun {
  ir::Program &Prog;
  SchedulePlan &Plan;
  PermutationTables *Perms = nullptr; ///< the current kernel's
  std::map<std::size_t, std::vector<ir::Kernel>> Lowered;
  std::vector<ir::Permutation> AddedPerms;

  /// P as a list permutation named Name (a pass-built list: values, no
  /// expressions).
  ir::Permutation mapList(const std::string &Name, const ScheduledCopy &C, const CopyMap &M) const {
    ir::Permutation P;
    P.Name = Name;
    P.Kind = ir::PermKind::List;
    P.ArgValues.assign(M.Map.begin(), M.Map.end());
    P.Size = C.N;
    P.Loc = C.KLoc;
    return P;
  }
  /// P itself, for the lowerings that read it whole.
  std::shared_ptr<const Permutation> ownMap(CopyMap &M) const {
    return std::make_shared<const Permutation>(M.Direct ? Permutation::ofBijection(std::move(M.Map))
                                                        : Permutation(std::move(M.Map)));
  }
};

/// schedule auto: the calibrated model (analysis/models/StrategyModel.h)
/// weighs every strategy on P itself. A scatter or gather rewrites the copy
/// in place (returns true); bits and colored are lowered as written (C.Bits
/// set for bits).
bool lowerAuto(ScheduleRun &Run, ScheduledCopy &C, CopyMap &M, ColoredScheduleReport &Rep) {
  ir::Program &Prog = Run.Prog;
  ir::Kernel &K = *C.K;
  const std::int64_t N = C.N;
  const std::shared_ptr<const Permutation> PM =
      M.Whole ? Run.Perms->share(M.StepRefs.front().Name, M.StepRefs.front().Inverse)
              : std::make_shared<const Permutation>(M.Direct ? Permutation::ofBijection(M.Map) : Permutation(M.Map));
  const std::shared_ptr<const Permutation> Inv =
      M.Whole ? Run.Perms->share(M.StepRefs.front().Name, !M.StepRefs.front().Inverse)
              : std::make_shared<const Permutation>(inverse(*PM));
  // Index bytes per element: none for a closed form, else the narrowest
  // table codegen stores.
  const int TableBytes = N <= 256 ? 1 : N <= 65536 ? 2 : 4;
  bool ClosedForm = false;
  if (M.Whole)
    if (const ir::Permutation *D = Prog.findPerm(M.StepRefs.front().Name))
      ClosedForm = ir::hasClosedForm(D->Kind);
  StrategyInputs In;
  In.P = PM.get();
  In.Inv = Inv.get();
  In.ElemBytes = static_cast<int>(ir::byteSize(C.SA->Elem));
  In.BlockThreads = static_cast<int>(K.Geo.threadsPerBlock());
  In.ScatterTableBytes = In.GatherTableBytes = ClosedForm ? 0 : TableBytes;
  const std::optional<BitPermutation> Bpc = asBitPermutation(*PM);
  In.IsBits = Bpc && Bpc->Bits >= 10;
  In.WhyNotBits = In.IsBits ? std::string()
                  : Bpc     ? fmt::format("n = {} is below the 1,024 of a 32 x 32 tile", N)
                            : "not a bit permutation: " + whyNotBitPermutation(*PM);
  In.ColoredApplies = C.WhyNotColored.empty();
  In.WhyNotColored = C.WhyNotColored;
  auto Choice = std::make_shared<StrategyChoice>(chooseStrategy(In));
  Rep.Auto = Choice;
  const Strategy Chosen = Choice->Chosen;
  if (Chosen == Strategy::Bits)
    C.Bits = true;
  if (Chosen != Strategy::Scatter && Chosen != Strategy::Gather)
    return false;
  // dst[P(tid)] = src[tid] or dst[tid] = src[inverse(P)(tid)], P the
  // table the copy went through or the map as a list.
  TableRef Ref = M.Whole ? M.StepRefs.front() : TableRef{"auto_" + K.Name + "_P", false};
  if (!M.Whole)
    Run.AddedPerms.push_back(Run.mapList(Ref.Name, C, M));
  const SourceLoc SrcLoc = C.Src->Indices.front().Loc, DstLoc = C.Dst->Indices.front().Loc;
  auto Tid = [](const SourceLoc &L) { return ir::Expr{ir::BuiltinRef{ir::Builtin::Tid}, ir::NodeLoc(L)}; };
  auto Apply = [&](bool Inverse, const SourceLoc &L) {
    ir::PermApply A;
    A.Perm = Ref.Name;
    A.Inverse = Inverse;
    A.Arg = Tid(L);
    return ir::Expr{std::move(A), ir::NodeLoc(L)};
  };
  // A table goes in as a kernel array that holds it (loaded like any
  // `holds` table), so its read is an access site the analysis counts
  // and the report shows: q[tid] of TableBytes bytes, one per thread.
  auto Index = [&](bool Inverse, const SourceLoc &L) {
    if (ClosedForm)
      return Apply(Inverse, L);
    std::set<std::string> Taken = takenNames(Prog, &K);
    std::string Name = "q";
    while (Taken.count(Name))
      Name += "_";
    const IrBuilder B{L};
    ir::Array T = B.array(Name, ir::MemSpace::Global,
                          ir::ElemType{TableBytes == 1   ? ir::ScalarType::U8
                                       : TableBytes == 2 ? ir::ScalarType::U16
                                                         : ir::ScalarType::U32,
                                       1},
                          N);
    T.Dims = C.SA->Dims; // n as the program writes it
    T.Holds = ir::PermRef{Ref.Name, Inverse};
    K.Params.push_back(std::move(T));
    return B.read(Name, Tid(L));
  };
  const bool Scatter = Chosen == Strategy::Scatter;
  C.Dst->Indices.front() = Scatter ? Index(Ref.Inverse, DstLoc) : Tid(DstLoc);
  C.Src->Indices.front() = Scatter ? Tid(SrcLoc) : Index(!Ref.Inverse, SrcLoc);
  K.Schedule = ir::KernelSchedule::None;
  return true;
}

/// schedule bits: one tiled pass (ColoredSchedule.h); P must permute the
/// bits of the index.
void lowerBits(ScheduleRun &Run, ScheduledCopy &C, CopyMap &M, ColoredScheduleReport &Rep) {
  std::optional<Permutation> Own;
  const Permutation &PM =
      M.Whole ? *M.Whole
              : *(Own = M.Direct ? Permutation::ofBijection(std::move(M.Map)) : Permutation(std::move(M.Map)));
  const std::optional<BitPermutation> Bpc = asBitPermutation(PM);
  if (!Bpc)
    C.fail(C.CopyLoc, fmt::format("schedule bits needs a copy whose map permutes the bits of the index "
                                  "(a BPC permutation: transpose, bit reversal, shuffle, ...); {}",
                                  whyNotBitPermutation(PM)));
  if (Bpc->Bits < 10)
    C.fail(C.KLoc, fmt::format("schedule bits moves 32 x 32 tiles: it needs n >= 1024, and n = {}", C.N));
  auto L = std::make_shared<BitLowering>();
  L->Bpc = *Bpc;
  Rep.Bits = L;
  *C.K = bitPermutationKernel(Run.Prog, *C.K, *Bpc, *C.SA, *C.DA, C.CopyLoc);
}

/// Seed 001 on a global copy: the schedule of the map (through the table
/// itself when the copy goes through one), and the kernel as three pass
/// kernels run by one launch under its name (put in place at the end).
void lowerGlobal(ScheduleRun &Run, std::size_t KIndex, ScheduledCopy &C, CopyMap &M, ColoredScheduleReport &Rep) {
  ir::Program &Prog = Run.Prog;
  const ir::Kernel &K = *C.K;
  const HmmNames Nm = hmmNames(Prog, K);
  TableRef Base{M.Whole ? M.StepRefs.front().Name : "colored_" + K.Name + "_P",
                M.Whole ? M.StepRefs.front().Inverse : false};
  if (!M.Whole)
    Run.AddedPerms.push_back(Run.mapList(Base.Name, C, M));
  auto L = std::make_shared<HmmLowering>();
  L->ElemBytes = ir::byteSize(C.SA->Elem);
  L->Shape = C.Shape;
  L->Schedule = Run.Plan.get(M.Whole ? Run.Perms->share(Base.Name, Base.Inverse) : Run.ownMap(M),
                             static_cast<int>(L->ElemBytes));
  L->ScheduleSeconds = Run.Plan.seconds(*L->Schedule);
  std::vector<ir::Kernel> Passes;
  for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
    for (const auto &[Name, Kind] : {std::pair(Nm.SPerm[Pass], ir::PermKind::HmmSrc),
                                     std::pair(Nm.DPerm[Pass], ir::PermKind::HmmDst)}) {
      ir::Permutation T;
      T.Name = Name;
      T.Kind = Kind;
      T.Base = Base.Name;
      T.BaseInverse = Base.Inverse;
      T.Args = {ir::makeInt(Pass, C.KLoc)};
      T.ArgValues = {Pass};
      if (L->ElemBytes != 4) { // hmm_src(P, pass: k, bytes: 8)
        T.Args.push_back(ir::makeInt(L->ElemBytes, C.KLoc));
        T.ArgValues.push_back(L->ElemBytes);
      }
      T.Size = C.N;
      T.Loc = C.KLoc;
      Run.AddedPerms.push_back(std::move(T));
    }
    Passes.push_back(hmmPassKernel(K, *L->Schedule, Pass, *C.SA, *C.DA, Nm, C.Copy->Value.Loc, C.CopyLoc));
    L->PassKernels.push_back(Nm.Kernel[Pass]);
  }
  Prog.Launches.push_back({K.Name, L->PassKernels, K.Loc});
  Run.Lowered[KIndex] = std::move(Passes);
  Rep.Hmm = std::move(L);
}

/// Seed 003 on a shared copy: P, S and D added, the copy rewritten as
/// dst[D(tid)] = src[S(tid)].
void lowerShared(ScheduleRun &Run, ScheduledCopy &C, const CopyMap &M, ColoredScheduleReport &Rep) {
  ir::Program &Prog = Run.Prog;
  const std::string &KName = C.K->Name;
  Rep.PermName = "colored_" + KName + "_P";
  Rep.SrcName = "colored_" + KName + "_S";
  Rep.DstName = "colored_" + KName + "_D";
  Prog.Perms.push_back(Run.mapList(Rep.PermName, C, M));
  for (const auto &[Name, Kind] : {std::pair(Rep.SrcName, ir::PermKind::ScheduleSrc),
                                   std::pair(Rep.DstName, ir::PermKind::ScheduleDst)}) {
    ir::Permutation S;
    S.Name = Name;
    S.Kind = Kind;
    S.Base = Rep.PermName;
    S.Args = {ir::makeInt(C.W)};
    S.ArgValues = {C.W};
    S.Size = C.N;
    S.Loc = C.KLoc;
    Prog.Perms.push_back(S);
  }
  auto Apply = [&](const std::string &Perm, const SourceLoc &L) {
    ir::PermApply A;
    A.Perm = Perm;
    A.Arg = ir::Expr{ir::BuiltinRef{ir::Builtin::Tid}, ir::NodeLoc(L)};
    return ir::Expr{std::move(A), ir::NodeLoc(L)};
  };
  const SourceLoc SrcLoc = C.Src->Indices.front().Loc, DstLoc = C.Dst->Indices.front().Loc;
  C.Src->Indices.front() = Apply(Rep.SrcName, SrcLoc);
  C.Dst->Indices.front() = Apply(Rep.DstName, DstLoc);
  C.K->Schedule = ir::KernelSchedule::None;
}

} // namespace

ColoredScheduling applyColoredSchedules(const ir::Program &Input, SchedulePlan *Plan) {
  ColoredScheduling Result{Input, {}};
  ir::Program &Prog = Result.Program;
  SchedulePlan Own;
  ScheduleRun Run{Prog, Plan ? *Plan : Own, nullptr, {}, {}};
  for (std::size_t KIndex = 0; KIndex < Prog.Kernels.size(); ++KIndex) {
    ir::Kernel &K = Prog.Kernels[KIndex];
    if (K.Schedule == ir::KernelSchedule::None)
      continue;
    ScheduledCopy C = checkCopy(Prog, K);
    checkColoredApplies(Prog, C);
    checkElementsAndWarps(Prog, C);
    PermutationTables Perms(Prog, &Run.Plan);
    Run.Perms = &Perms;
    CopyMap M = copyMap(Prog, C, Perms);
    ColoredScheduleReport Rep;
    Rep.Kernel = K.Name;
    Rep.Loc = C.KLoc;
    Rep.Src = C.SA->Name;
    Rep.Dst = C.DA->Name;
    Rep.N = C.N;
    Rep.W = C.W;
    if (C.Auto && lowerAuto(Run, C, M, Rep)) {
      // a scatter or gather: the copy rewritten in place
    } else if (C.Bits) {
      lowerBits(Run, C, M, Rep);
    } else if (C.Global) {
      lowerGlobal(Run, KIndex, C, M, Rep);
    } else {
      lowerShared(Run, C, M, Rep);
    }
    Result.Reports.push_back(std::move(Rep));
    Run.Perms = nullptr;
  }
  for (ir::Permutation &P : Run.AddedPerms)
    Prog.Perms.push_back(std::move(P));
  for (auto It = Run.Lowered.rbegin(); It != Run.Lowered.rend(); ++It) {
    const auto At = Prog.Kernels.begin() + static_cast<std::ptrdiff_t>(It->first);
    Prog.Kernels.insert(Prog.Kernels.erase(At), std::make_move_iterator(It->second.begin()),
                        std::make_move_iterator(It->second.end()));
  }
  return Result;
}

std::string autoScheduleNote(const ColoredScheduleReport &R) {
  return fmt::format("schedule auto of '{}': {}[P(i)] = {}[i] for n = {} by {}", R.Kernel, R.Dst, R.Src, R.N,
                     describe(*R.Auto));
}

std::string scheduleCostNote(const ColoredScheduleReport &R) {
  std::string T = fmt::format("the offline schedule of '{}' took {:.2f} s of wall time (once per P)", R.Kernel,
                              R.Hmm ? R.Hmm->ScheduleSeconds : 0.0);
  if (R.Hmm && R.Auto)
    if (const std::uint64_t Runs = breakEvenRuns(*R.Auto, R.Hmm->ScheduleSeconds))
      T += fmt::format("; repaid after {} runs by the estimates against the fastest one-pass strategy", Runs);
  return T;
}

} // namespace bankwise
