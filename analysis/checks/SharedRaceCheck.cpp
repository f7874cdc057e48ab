#include "analysis/checks/SharedRaceCheck.h"

#include "ir/Walk.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <tuple>
#include <map>
#include <set>

namespace bankwise {

std::vector<TracedAccess> sortedByElement(const KernelTrace &T, const BlockTrace &B) {
  std::vector<TracedAccess> A = B.Shared;
  // Each site's array by the rank of its name among the names, so the
  // order is by name without a string copied and compared per comparison
  // (that was a third of a template-heavy file's lint).
  std::vector<const std::string *> Names;
  for (const auto &S : T.Sites)
    Names.push_back(&S.Arr->Name);
  std::vector<const std::string *> Sorted = Names;
  std::sort(Sorted.begin(), Sorted.end(), [](const std::string *X, const std::string *Y) { return *X < *Y; });
  std::vector<std::size_t> Rank(Names.size());
  for (std::size_t I = 0; I < Names.size(); ++I)
    Rank[I] = static_cast<std::size_t>(
        std::lower_bound(Sorted.begin(), Sorted.end(), Names[I],
                         [](const std::string *X, const std::string *Y) { return *X < *Y; }) -
        Sorted.begin());
  auto Key = [&](const TracedAccess &X) {
    return std::tuple(Rank[static_cast<std::size_t>(X.Site)], X.Elem, X.Interval, X.Thread, X.Seq);
  };
  std::stable_sort(A.begin(), A.end(), [&](const TracedAccess &X, const TracedAccess &Y) { return Key(X) < Key(Y); });
  return A;
}

std::string blockSuffix(const KernelTrace &T, const BlockTrace &B) {
  if (T.NumBlocks == 1)
    return "";
  return fmt::format(" (block ({}, {}, {}))", B.Block[0], B.Block[1], B.Block[2]);
}

namespace {

struct Race {
  TracedAccess First, Second; ///< First writes
  const BlockTrace *Block = nullptr;
  std::int64_t Elements = 0; ///< elements these sites race on, over the blocks traced
};

} // namespace

std::vector<LintFinding> checkSharedRaces(const CheckedProgram &P) {
  std::vector<LintFinding> Out;
  for (const CheckedKernel &C : P.Kernels) {
    if (!C.Trace || !C.Trace->BarriersAgree)
      continue; // a divergent barrier is reported as such; intervals mean nothing
    const KernelTrace &T = *C.Trace;
    const ir::Kernel &K = *C.K;
    const std::int64_t Warp = P.Prog->Mach ? P.Prog->Mach->warpSize() : 32;
    std::map<std::pair<int, int>, Race> Races; // by (lower site, higher site)
    for (const BlockTrace &B : T.Blocks) {
      const std::vector<TracedAccess> A = sortedByElement(T, B);
      const auto SameGroup = [&](const TracedAccess &X, const TracedAccess &Y) {
        return X.Elem == Y.Elem && X.Interval == Y.Interval &&
               T.Sites[static_cast<std::size_t>(X.Site)].Arr == T.Sites[static_cast<std::size_t>(Y.Site)].Arr;
      };
      for (std::size_t I = 0; I < A.size();) {
        std::size_t J = I + 1;
        bool AnyWrite = A[I].Write;
        for (; J < A.size() && SameGroup(A[I], A[J]); ++J)
          AnyWrite = AnyWrite || A[J].Write;
        if (AnyWrite && J - I > 1) {
          // Per site, its accesses by up to two distinct threads: enough to
          // find a partner of another thread for any access.
          std::map<int, std::vector<const TracedAccess *>> Reps;
          for (std::size_t X = I; X < J; ++X) {
            const TraceSite &S = T.Sites[static_cast<std::size_t>(A[X].Site)];
            if (S.Uncertain)
              continue; // it may not run in this thread
            std::vector<const TracedAccess *> &R = Reps[A[X].Site];
            if (R.size() < 2 && (R.empty() || R.front()->Thread != A[X].Thread))
              R.push_back(&A[X]);
          }
          std::set<std::pair<int, int>> Counted; // this element's pairs of sites
          for (const auto &[WSite, WReps] : Reps)
            for (const TracedAccess *W : WReps) {
              if (!W->Write)
                continue;
              for (const auto &[OSite, OReps] : Reps) {
                // Atomics of one element take turns: no race between two.
                if (T.Sites[static_cast<std::size_t>(WSite)].Atomic && T.Sites[static_cast<std::size_t>(OSite)].Atomic)
                  continue;
                const auto O = std::find_if(OReps.begin(), OReps.end(),
                                            [&](const TracedAccess *X) { return X->Thread != W->Thread; });
                if (O == OReps.end())
                  continue;
                const std::pair<int, int> Key{std::min(WSite, OSite), std::max(WSite, OSite)};
                auto [It, New] = Races.try_emplace(Key);
                if (New) {
                  It->second.First = *W;
                  It->second.Second = **O;
                  It->second.Block = &B;
                }
                if (Counted.insert(Key).second)
                  ++It->second.Elements;
              }
            }
        }
        I = J;
      }
    }
    // One error per writing site: its first partner (in source order) named,
    // the others listed, since one missing barrier makes several pairs.
    std::map<int, std::vector<const Race *>> ByWrite;
    for (const auto &[Key, R] : Races)
      ByWrite[R.First.Site].push_back(&R);
    const std::string &Barrier = P.BarrierName;
    for (auto &[WSiteIdx, List] : ByWrite) {
      std::stable_sort(List.begin(), List.end(), [&](const Race *A, const Race *B) {
        const SourceLoc &LA = T.Sites[static_cast<std::size_t>(A->Second.Site)].Loc;
        const SourceLoc &LB = T.Sites[static_cast<std::size_t>(B->Second.Site)].Loc;
        return std::tie(LA.Line, LA.Col) < std::tie(LB.Line, LB.Col);
      });
      const Race &R = *List.front();
      const TraceSite &WS = T.Sites[static_cast<std::size_t>(R.First.Site)];
      const TraceSite &OS = T.Sites[static_cast<std::size_t>(R.Second.Site)];
      const std::string Tw = threadText(K.Geo.BlockDim, R.First.Thread);
      const std::string To = threadText(K.Geo.BlockDim, R.Second.Thread);
      const std::string Elem = elementText(*WS.Arr, R.First.Elem);
      LintFinding F;
      F.Check = "bankwise-shared-race";
      F.Sev = Severity::Error;
      F.Loc = WS.Loc;
      // An atomic write races with a plain access as any write does.
      const std::string Atomically = WS.Atomic || OS.Atomic ? " (one atomically)" : "";
      if (R.Second.Write)
        F.Message = fmt::format("data race on shared '{}': threads {} and {} both write {}{} with no '{}' between "
                                "them{}",
                                WS.Arr->Name, Tw, To, Elem, Atomically, Barrier, blockSuffix(T, *R.Block));
      else
        F.Message = fmt::format("data race on shared '{}': thread {} writes {}{} and thread {} reads it with no "
                                "'{}' between them{}",
                                WS.Arr->Name, Tw, Elem, WS.Atomic ? " atomically" : "", To, Barrier,
                                blockSuffix(T, *R.Block));
      if (&WS != &OS)
        F.Notes.push_back({OS.Loc, fmt::format("the {} by thread {} is here", R.Second.Write ? "other write" : "read",
                                               To)});
      if (R.First.Thread / Warp == R.Second.Thread / Warp)
        F.Notes.push_back({WS.Loc, fmt::format("threads {} and {} are lanes {} and {} of warp {}: CUDA orders the "
                                               "lanes of a warp only through __syncwarp(), so they count as "
                                               "different threads{}",
                                               Tw, To, R.First.Thread % Warp, R.Second.Thread % Warp,
                                               R.First.Thread / Warp,
                                               Barrier == "sync" ? "" : " (a __syncwarp() between them suffices)")});
      if (R.Elements > 1)
        F.Notes.push_back({WS.Loc, fmt::format("{} elements race between these accesses in the blocks checked",
                                               R.Elements)});
      if (List.size() > 1) {
        std::vector<std::string> Others;
        for (std::size_t I = 1; I < List.size(); ++I) {
          const TraceSite &X = T.Sites[static_cast<std::size_t>(List[I]->Second.Site)];
          Others.push_back(fmt::format("{} at {}:{}", List[I]->Second.Write ? "the write" : "the read", X.Loc.Line,
                                       X.Loc.Col));
        }
        F.Notes.push_back({WS.Loc, fmt::format("this write also races with {}", fmt::join(Others, ", "))});
      }
      F.Notes.push_back({WS.Loc, R.Second.Write
                                     ? fmt::format("let one thread write each element, or put a '{}' between the "
                                                   "two writes",
                                                   Barrier)
                                     : fmt::format("insert a '{}' between the write and the read, so that every "
                                                   "write of the block completes before any thread reads",
                                                   Barrier)});
      if (!T.EveryBlock)
        F.Notes.push_back({K.Loc, fmt::format("shared memory checked in {} of kernel '{}'", T.blocksText(), K.Name)});
      Out.push_back(std::move(F));
    }
    // What the check could not see, said where it was not seen.
    for (std::size_t S = 0; S < T.Sites.size(); ++S) {
      const TraceSite &Site = T.Sites[S];
      if (T.DataDependent[S] == 0 || Site.Arr->Space != ir::MemSpace::Shared || Site.Uncertain || Site.Atomic)
        continue;
      LintFinding F;
      F.Check = "bankwise-shared-race";
      F.Sev = Severity::Note;
      F.Loc = Site.Loc;
      // What made the index unknown, found where the trace met it (through
      // locals and shuffles): "reads 'p', whose values are unknown (...)".
      F.Message = fmt::format("{} {} of '{}' not checked for races: the index {}", T.DataDependent[S],
                              T.DataDependent[S] == 1 ? "access" : "accesses", Site.Arr->Name, T.DataSource[S]);
      Out.push_back(std::move(F));
    }
  }
  return Out;
}

} // namespace bankwise
