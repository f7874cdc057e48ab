// The two runs of a kernel's warps over the one warp evaluator (Analyzer's
// eval and exec: expressions, reads, addresses, statements): the
// exhaustive run (ExhaustiveRun.cpp), every warp of every block with its
// indices as numbers, each access costed as it happens; and the
// class-counting run (ClassCounting.cpp), a symbolic run per warp position
// (or one for a warp family) with block indices, the warp position and long
// loops as variables, whose accesses are templates counted by class
// afterwards. The evaluator asks the current run (Analyzer::Run) at exactly
// the points where the two differ; each hook's two implementations are the
// two behaviours. Internal: nothing outside analysis/ includes it.
#pragma once

#include "analysis/passes/detail/Analyzer.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bankwise::kernel_analysis {

/// What the evaluator asks of the run it serves. A run is the evaluator's
/// current one (Analyzer::Run) from its construction to its destruction.
class Analyzer::WarpRun {
public:
  explicit WarpRun(Analyzer &Owner) : An(Owner) { An.Run = this; }
  virtual ~WarpRun() { An.Run = nullptr; }
  WarpRun(const WarpRun &) = delete;
  WarpRun &operator=(const WarpRun &) = delete;

  // Values of the built-in indices.
  /// blockIdx's dimension Dim, into R's uniform part.
  virtual void blockIndex(int Dim, Val &R) const = 0;
  /// tid's block part (the block's first thread), into R's uniform part.
  virtual void blockOffset(Val &R) const = 0;
  /// The terms the warp's position in its block adds to thread index Dim
  /// (threadIdx), into R's uniform part.
  virtual void threadTerms(int Dim, Val &R) const = 0;
  /// The terms of the warp's index in its block times Scale (the warp's
  /// index: 1; tid: the warp's width), into R's uniform part.
  virtual void warpIndexTerms(std::int64_t Scale, Val &R) const = 0;
  /// A point that the warp's position in its block decides (a read alike in
  /// lanes that a guard on the position picks, a table read per lane at an
  /// index in the position, ...): a run with the position a number goes
  /// on; a warp family's run, with the position a variable, gives up with
  /// Reason (NotAffine) so that a run per warp position decides.
  virtual void warpPositionDecides(const std::string &Reason) const = 0;

  // Statements.
  /// A `for` whose bounds are known (no data): per-lane loop variables
  /// (Analyzer::execLaneFor) or the symbolic forms (execSymbolicFor).
  virtual void forLoop(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &End,
                       const Val &Step, Mask M) = 0;
  /// The sampled trips of a `for` whose end alone is data (Within: the
  /// lanes still before its known ends); Analyzer::execDataFor's last step.
  virtual void dataForTrips(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &Step,
                            Mask M, const std::function<Mask(const Val &)> &Within) = 0;
  /// A `while`.
  virtual void whileLoop(const ir::While &Wh, const SourceLoc &Loc, Mask M) = 0;
  /// A barrier.
  virtual void barrier() = 0;
  /// A warp access of Site at Addr by the lanes of M.
  virtual void record(int Site, const Val &Addr, Mask M) = 0;

protected:
  Analyzer &An;
};

/// Every warp of every block, its indices numbers: each access costed as
/// it happens, the time simulated from the warps' traces.
class Analyzer::ExhaustiveRun final : public WarpRun {
public:
  using WarpRun::WarpRun;
  /// The per-site reports, the time and the steps into Rep.
  void run(KernelReport &Rep);

  void blockIndex(int Dim, Val &R) const override;
  void blockOffset(Val &R) const override;
  void threadTerms(int, Val &) const override {}
  void warpIndexTerms(std::int64_t, Val &) const override {}
  void warpPositionDecides(const std::string &) const override {}
  void forLoop(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &End, const Val &Step,
               Mask M) override;
  void dataForTrips(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &Step, Mask M,
                    const std::function<Mask(const Val &)> &Within) override;
  void whileLoop(const ir::While &Wh, const SourceLoc &Loc, Mask M) override;
  void barrier() override { ++Phase; }
  void record(int Site, const Val &Addr, Mask M) override;

private:
  /// A warp's access as the time simulation takes it.
  struct WarpAccess {
    int Site;
    std::int64_t K;
    int Requests;
    std::int32_t Phase;
  };
  /// The time of the warps' traces, phase by phase, into Rep.
  void simulate(const std::vector<std::vector<WarpAccess>> &Traces, KernelReport &Rep) const;
  /// The current warp's accesses, and its phase (barriers passed).
  std::vector<WarpAccess> *Trace = nullptr;
  std::int32_t Phase = 0;
  std::vector<AccessSiteReport> *Reports = nullptr;
};

/// A symbolic run per warp position, or one for the block's warps as a
/// family (Family): each access a template, affine in the block indices,
/// the warp position and loop variables; the templates then counted by
/// class (ClassCounter) and the time walked (TimeWalk).
class Analyzer::ClassCountingRun final : public WarpRun {
public:
  ClassCountingRun(Analyzer &Owner, std::optional<WarpFamily> F) : WarpRun(Owner), Family(std::move(F)) {}
  /// The per-site reports and the time into Rep; NotAffine where a value
  /// leaves the affine domain.
  void run(KernelReport &Rep);

  void blockIndex(int Dim, Val &R) const override;
  void blockOffset(Val &R) const override;
  void threadTerms(int Dim, Val &R) const override;
  void warpIndexTerms(std::int64_t Scale, Val &R) const override;
  void warpPositionDecides(const std::string &Reason) const override;
  void forLoop(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &End, const Val &Step,
               Mask M) override;
  void dataForTrips(const ir::For &F, const SourceLoc &Loc, const Val &Begin, const Val &Step, Mask M,
                    const std::function<Mask(const Val &)> &Within) override;
  void whileLoop(const ir::While &Wh, const SourceLoc &Loc, Mask M) override;
  void barrier() override;
  void record(int Site, const Val &Addr, Mask M) override;

private:
  /// Step 1 of run: the symbolic run of each warp position (one for a warp
  /// family), which records the templates.
  SymbolicRuns runWarps();
  /// The terms K-th warp position variable times Coef[K], for the
  /// family's variables that vary (none without a family).
  void familyTerms(const std::array<std::int64_t, 3> &Coef, Val &R) const;
  /// The family the run evaluates as; nullopt: warp by warp position.
  std::optional<WarpFamily> Family;
};

} // namespace bankwise::kernel_analysis
