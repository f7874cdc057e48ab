#include "analysis/ColoredSchedule.h"

#include "analysis/PermutationTables.h"
#include "ir/Eval.h"
#include "support/Diagnostic.h"

#include <fmt/format.h>

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

} // namespace

std::vector<ColoredScheduleReport> applyColoredSchedules(ir::Program &Prog) {
  std::vector<ColoredScheduleReport> Out;
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
      Fail(CopyLoc, "schedule colored needs a copy from one shared array element "
                    "to another");
    const ir::Array *DA = Prog.findArray(K, Dst->Array);
    const ir::Array *SA = Prog.findArray(K, Src->Array);
    const std::int64_t N = K.Geo.GridDim[0] * K.Geo.GridDim[1] * K.Geo.GridDim[2] *
                           K.Geo.threadsPerBlock();
    for (const ir::Array *A : {SA, DA}) {
      if (!A || A->Space != ir::MemSpace::Shared || A->Shape.size() != 1)
        Fail(CopyLoc, "schedule colored copies between one-dimensional shared arrays");
      if (A->numElements() != N)
        Fail(A->Loc, fmt::format("'{}' has {} elements; schedule colored moves one "
                                 "element per thread, and the kernel has {} threads",
                                 A->Name, A->numElements(), N));
    }
    const std::int64_t W = Prog.Mach ? Prog.Mach->warpSize() : 32;
    if (N % W != 0)
      Fail(KLoc, fmt::format("schedule colored needs the {} threads to fill whole "
                             "warps of {}",
                             N, W));
    // P(g(t)) = f(t), checked one-to-one.
    PermutationTables Perms(Prog);
    ThreadIndexer Indexer(Prog, K, Perms);
    std::vector<std::uint32_t> Map(static_cast<std::size_t>(N));
    std::vector<std::int64_t> ReadBy(static_cast<std::size_t>(N), -1),
        WrittenBy(static_cast<std::size_t>(N), -1);
    for (std::int64_t T = 0; T < N; ++T) {
      const std::int64_t G = Indexer.at(Src->Indices.front(), T);
      const std::int64_t F = Indexer.at(Dst->Indices.front(), T);
      for (auto [X, Seen, What, Loc] :
           {std::tuple(G, &ReadBy, "reads", Src->Indices.front().Loc),
            std::tuple(F, &WrittenBy, "writes", Dst->Indices.front().Loc)}) {
        if (X < 0 || X >= N)
          Fail(Loc, fmt::format("thread tid = {} {} element {}, outside 0..{}", T, What, X,
                                N - 1));
        auto &Prev = (*Seen)[static_cast<std::size_t>(X)];
        if (Prev >= 0)
          Fail(Loc, fmt::format("schedule colored needs a one-to-one copy, but threads "
                                "tid = {} and tid = {} both {} element {}",
                                Prev, T, What, X));
        Prev = T;
      }
      Map[static_cast<std::size_t>(G)] = static_cast<std::uint32_t>(F);
    }
    // Add P (as a list), S and D, and rewrite the copy.
    ColoredScheduleReport Rep;
    Rep.Kernel = K.Name;
    Rep.Loc = KLoc;
    Rep.Src = SA->Name;
    Rep.Dst = DA->Name;
    Rep.N = N;
    Rep.W = W;
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
  return Out;
}

} // namespace bankwise
