#include "analysis/checks/UninitializedSharedReadCheck.h"

#include "analysis/checks/SharedRaceCheck.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace bankwise {

namespace {

struct Uninit {
  TracedAccess Read;
  std::optional<TracedAccess> LaterWrite;
  const BlockTrace *Block = nullptr;
  std::int64_t Reads = 0;
};

} // namespace

std::vector<LintFinding> checkUninitializedSharedReads(const CheckedProgram &P) {
  std::vector<LintFinding> Out;
  for (const CheckedKernel &C : P.Kernels) {
    if (!C.Trace || !C.Trace->BarriersAgree || C.Trace->DataControl)
      continue; // accesses left out: a missing write proves nothing
    const KernelTrace &T = *C.Trace;
    const ir::Kernel &K = *C.K;
    // Arrays a write of unknown index may have initialized anywhere, and the
    // kernel's shared parameters (data already there).
    std::set<const ir::Array *> Skip;
    // So are arrays another array of their memory writes (its elements map
    // to theirs by bytes, which this check does not follow).
    std::map<std::string, std::set<const ir::Array *>> GroupWriters;
    for (const TraceSite &S : T.Sites)
      if (const auto G = P.Aliases.find(S.Arr->Name); S.IsWrite && G != P.Aliases.end())
        GroupWriters[G->second].insert(S.Arr);
    for (std::size_t S = 0; S < T.Sites.size(); ++S) {
      const ir::Array *Arr = T.Sites[S].Arr;
      const auto G = P.Aliases.find(Arr->Name);
      const bool AliasWritten =
          G != P.Aliases.end() && std::any_of(GroupWriters[G->second].begin(), GroupWriters[G->second].end(),
                                              [&](const ir::Array *W) { return W != Arr; });
      if ((T.Sites[S].IsWrite && T.DataDependent[S] > 0) || P.WrittenSomewhere.count(Arr->Name) || AliasWritten)
        Skip.insert(Arr);
    }
    for (const ir::Array &A : K.Params)
      Skip.insert(&A);
    std::map<int, Uninit> Found; // by read site
    for (const BlockTrace &B : T.Blocks) {
      const std::vector<TracedAccess> A = sortedByElement(T, B);
      const auto ArrOf = [&](const TracedAccess &X) { return T.Sites[static_cast<std::size_t>(X.Site)].Arr; };
      for (std::size_t I = 0; I < A.size();) {
        // One element's accesses, by interval, thread and program order.
        std::size_t J = I + 1;
        while (J < A.size() && A[J].Elem == A[I].Elem && ArrOf(A[J]) == ArrOf(A[I]))
          ++J;
        if (Skip.count(ArrOf(A[I]))) {
          I = J;
          continue;
        }
        bool Earlier = false; // written in an earlier interval
        for (std::size_t X = I; X < J;) {
          std::size_t Y = X; // the interval A[X].Interval is A[X..Y)
          // An atomic reads the element before it writes it; atomics of
          // other threads in the interval initialize nothing for it. An
          // exchange whose old value is dropped reads nothing: a write.
          const auto Atomic = [&](const TracedAccess &Z) {
            const TraceSite &S = T.Sites[static_cast<std::size_t>(Z.Site)];
            return S.Atomic && S.ReadsOld;
          };
          std::set<std::int32_t> Writers, PlainWriters;
          std::map<std::int32_t, std::int64_t> FirstWrite; // per thread, its first write's Seq
          while (Y < J && A[Y].Interval == A[X].Interval) {
            if (A[Y].Write) {
              Writers.insert(A[Y].Thread);
              if (!Atomic(A[Y]))
                PlainWriters.insert(A[Y].Thread);
              FirstWrite.try_emplace(A[Y].Thread, A[Y].Seq);
            }
            ++Y;
          }
          for (std::size_t R = X; R < Y; ++R) {
            if ((A[R].Write && !Atomic(A[R])) || Earlier || T.Sites[static_cast<std::size_t>(A[R].Site)].Uncertain)
              continue;
            const auto Own = FirstWrite.find(A[R].Thread);
            const std::set<std::int32_t> &Others = Atomic(A[R]) ? PlainWriters : Writers;
            const bool ByOther = std::any_of(Others.begin(), Others.end(),
                                             [&](std::int32_t W) { return W != A[R].Thread; });
            if (ByOther || (Own != FirstWrite.end() && Own->second < A[R].Seq))
              continue;
            auto [It, New] = Found.try_emplace(A[R].Site);
            if (New) {
              It->second.Read = A[R];
              It->second.Block = &B;
              for (std::size_t W = R + 1; W < J; ++W)
                if (A[W].Write) {
                  It->second.LaterWrite = A[W];
                  break;
                }
            }
            ++It->second.Reads;
          }
          Earlier = Earlier || !Writers.empty();
          X = Y;
        }
        I = J;
      }
    }
    for (const auto &[Site, U] : Found) {
      const TraceSite &RS = T.Sites[static_cast<std::size_t>(Site)];
      LintFinding F;
      F.Check = "bankwise-uninitialized-shared-read";
      F.Sev = Severity::Warning;
      F.Loc = RS.Loc;
      F.Message = fmt::format("thread {} {} {} before any thread of its block wrote it{}",
                              threadText(K.Geo.BlockDim, U.Read.Thread), RS.Atomic ? "atomically updates" : "reads",
                              elementText(*RS.Arr, U.Read.Elem), blockSuffix(T, *U.Block));
      if (U.Reads > 1)
        F.Notes.push_back({RS.Loc, fmt::format("{} reads at this site read an element no thread wrote before them",
                                               U.Reads)});
      if (U.LaterWrite) {
        const TraceSite &WS = T.Sites[static_cast<std::size_t>(U.LaterWrite->Site)];
        F.Notes.push_back({WS.Loc, fmt::format("thread {} writes it here, after the read{}",
                                               threadText(K.Geo.BlockDim, U.LaterWrite->Thread),
                                               U.LaterWrite->Interval > U.Read.Interval ? " (a later 'sync' apart)"
                                                                                        : "")});
        F.Notes.push_back({RS.Loc, "write the element before the read, with a 'sync' between them when another "
                                   "thread writes it"});
      } else {
        F.Notes.push_back({RS.Loc, fmt::format("no thread of the block writes {} at all: write it before the read, "
                                               "or read only elements written",
                                               elementText(*RS.Arr, U.Read.Elem))});
      }
      if (!T.EveryBlock)
        F.Notes.push_back({K.Loc, fmt::format("shared memory checked in {} of kernel '{}'", T.blocksText(), K.Name)});
      Out.push_back(std::move(F));
    }
  }
  return Out;
}

} // namespace bankwise
