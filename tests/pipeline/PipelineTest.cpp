// The pipeline's result is what every later stage reads: the analyze pass's
// figures (which codegen quotes without analyzing again), the schedule plan
// (seed 001's schedules, computed once per run and never kept for the
// process), the check pass's findings (handed to the command before the
// analysis runs), and the options that choose what the analyze pass
// analyzes.
#include <doctest/doctest.h>

#include "../support/ProgramFixtures.h"
#include "analysis/passes/PermutationTables.h"
#include "codegen/Codegen.h"
#include "ir/Sites.h"
#include "pipeline/Pipeline.h"

#include <algorithm>
#include <stdexcept>
#include <string>

using namespace bankwise;
using bankwise::testing::parseOrFail;
using bankwise::testing::sampleOrFail;

namespace {

std::size_t count(const std::string &Text, const std::string &Part) {
  std::size_t N = 0;
  for (std::size_t At = Text.find(Part); At != std::string::npos; At = Text.find(Part, At + 1))
    ++N;
  return N;
}

const char *TwoKernels = R"(target sm_90
kernel copy(a: global f32[4096], b: global f32[4096]) grid (16) block (256) {
  b[tid] = a[tid]
}
kernel strided(a: global f32[4096], c: global f32[8192]) grid (16) block (256) {
  c[2 * tid] = a[tid]
}
)";

} // namespace

TEST_CASE("the analyze pass analyzes every kernel once, and codegen quotes its figures without analyzing") {
  PipelineResult P = runPipeline(parseOrFail(TwoKernels));
  REQUIRE(P.Analyzed);
  REQUIRE(P.Analyses.size() == 2);
  CHECK(P.analysisOf("copy") == &P.Analyses[0]);
  CHECK(P.analysisOf("strided") == &P.Analyses[1]);
  CHECK(P.analysisOf("nothing") == nullptr);
  // Each site's node is in the program the result holds (the result was
  // moved out of the run, never copied).
  for (const KernelReport &R : P.Analyses)
    for (const AccessSiteReport &S : R.Sites) {
      REQUIRE(S.Node.Read);
      CHECK(ir::findSite(*P.Program.findKernel(R.Kernel), S.Node.Read->Site) == S.Node.Read);
    }
  const std::string Honest = codegen::compileToCuda(P, {}).Source;
  CHECK(count(Honest, "write of 'c' [raw] (global): sm_90 sectors 8") == 1);
  // A figure changed in the result is the figure codegen prints: it reads
  // the pipeline's analysis rather than computing its own.
  for (AccessSiteReport &S : P.Analyses[1].Sites)
    if (S.Array == "c") {
      S.Sectors = {};
      S.Sectors.add(77, S.WarpExecutions);
    }
  const std::string Tampered = codegen::compileToCuda(P, {}).Source;
  CHECK(count(Tampered, "write of 'c' [raw] (global): sm_90 sectors 77") == 1);
  CHECK(count(Tampered, "sm_90 sectors 8") == 0);
}

TEST_CASE("codegen refuses a result without the analyze pass, and names the kernel") {
  PipelineOptions PO;
  PO.Passes = {PassId::BindSizes, PassId::ScheduleColored, PassId::LayoutAuto, PassId::Check};
  const PipelineResult P = runPipeline(parseOrFail(TwoKernels), PO);
  CHECK_FALSE(P.Analyzed);
  CHECK(P.Analyses.empty());
  try {
    (void)codegen::compileToCuda(P, {});
    FAIL("expected std::logic_error");
  } catch (const std::logic_error &E) {
    CHECK(std::string(E.what()).find("kernel 'copy' has no analysis") != std::string::npos);
  }
}

TEST_CASE("the check pass's findings reach AfterCheck before the analysis, and StopOnCheckError stops there") {
  const char *Racy = R"(target sm_90
kernel racy(a: global f32[256]) threads 256 {
  shared s: f32[256]
  s[0] = a[tid]
  a[tid] = s[0]
}
)";
  PipelineOptions PO;
  int Calls = 0;
  bool AnalyzedBefore = true;
  PO.AfterCheck = [&](const PipelineResult &R) {
    ++Calls;
    AnalyzedBefore = R.Analyzed || !R.Analyses.empty();
    CHECK(R.Checked);
  };
  const PipelineResult Goes = runPipeline(parseOrFail(Racy), PO);
  CHECK(Calls == 1);
  CHECK_FALSE(AnalyzedBefore);
  REQUIRE(Goes.checkFailed()); // s[0] written by every thread: a race
  CHECK(Goes.Analyzed);        // without StopOnCheckError, analyze still runs

  PO.StopOnCheckError = true;
  const PipelineResult Stops = runPipeline(parseOrFail(Racy), PO);
  CHECK(Calls == 2);
  CHECK(Stops.checkFailed());
  CHECK_FALSE(Stops.Analyzed);
  CHECK(Stops.Analyses.empty());
  // The program is still the result's (after the passes that ran).
  CHECK(Stops.Program.findKernel("racy") != nullptr);

  const PipelineResult Clean = runPipeline(parseOrFail(TwoKernels), PO);
  CHECK_FALSE(Clean.checkFailed());
  CHECK(Clean.Analyzed);
}

TEST_CASE("analyze --kernel, --transformed and every size: what the analyze pass analyzes") {
  // A launch name selects its kernels; the program as read keeps the
  // scatter the launch replaced, analyzed with AsWritten.
  PipelineOptions PO;
  PO.Analyze.OnlyKernel = "permute_bitrev";
  PO.Analyze.AsWritten = true;
  const PipelineResult P = runPipeline(sampleOrFail("offline_permutation_scheduled.bw", {{"N", 4096}}), PO);
  REQUIRE(P.AsRead);
  const ir::Launch *L = P.Program.findLaunch("permute_bitrev");
  REQUIRE(L);
  REQUIRE(P.Analyses.size() == L->Kernels.size());
  for (std::size_t I = 0; I < L->Kernels.size(); ++I)
    CHECK(P.Analyses[I].Kernel == L->Kernels[I]);
  const KernelReport *Scatter = P.asReadAnalysisOf("permute_bitrev");
  REQUIRE(Scatter);
  CHECK(Scatter->Kernel == "permute_bitrev");
  CHECK(P.asReadAnalysisOf("permute_random") == nullptr); // not selected
  // Without AsWritten, nothing as read is analyzed; KeepAsRead keeps the
  // program as read.
  PO.Analyze.AsWritten = false;
  const PipelineResult Q = runPipeline(sampleOrFail("offline_permutation_scheduled.bw", {{"N", 4096}}), PO);
  CHECK(Q.AsReadAnalyses.empty());
  CHECK_FALSE(Q.AsRead);
  PO.Analyze.KeepAsRead = true;
  const PipelineResult K = runPipeline(sampleOrFail("offline_permutation_scheduled.bw", {{"N", 4096}}), PO);
  CHECK(K.AsReadAnalyses.empty());
  REQUIRE(K.AsRead);
  CHECK(K.AsRead->findKernel("permute_bitrev")->Schedule == ir::KernelSchedule::Colored);

  // Runtime sizes: EverySize analyzes the generic program's kernels over
  // every size instead of the bound ones.
  PipelineOptions E;
  E.Passes = {PassId::BindSizes, PassId::LayoutAuto, PassId::Check, PassId::Analyze};
  E.Analyze.EverySize = true;
  const PipelineResult G = runPipeline(sampleOrFail("transpose_any_shape.bw"), E);
  REQUIRE(G.Generic);
  CHECK(G.Analyses.empty());
  REQUIRE(G.EverySize.size() == G.Generic->Kernels.size());
  CHECK(G.EverySize.front().Kernel == G.Generic->Kernels.front().Name);
  CHECK_FALSE(G.EverySize.front().Params.empty());
  // Without EverySize, the bound program's kernels at the representative sizes.
  const PipelineResult B = runPipeline(sampleOrFail("transpose_any_shape.bw"));
  CHECK(B.EverySize.empty());
  CHECK(B.Analyses.size() == B.Program.Kernels.size());
}

TEST_CASE("the schedule plan: seed 001's schedules made once per run, read by every stage, kept by no process cache") {
  PipelineResult P = runPipeline(sampleOrFail("offline_permutation_scheduled.bw", {{"N", 4096}}));
  REQUIRE(P.Schedules);
  std::vector<const HmmSchedule *> Made;
  for (const ColoredScheduleReport &C : P.Colored)
    if (C.Hmm)
      Made.push_back(C.Hmm->Schedule.get());
  // permute_random (f32), permute_bitrev, permute_random_f64 (8 bytes: its
  // own shape): three schedules, each the pass's, timed by the plan.
  REQUIRE(Made.size() == 3);
  CHECK(P.Schedules->size() == 3);
  for (const ColoredScheduleReport &C : P.Colored)
    if (C.Hmm)
      CHECK(P.Schedules->seconds(*C.Hmm->Schedule) == C.Hmm->ScheduleSeconds);
  // The tables of the pass kernels, read as the analysis and codegen read
  // them (through the plan), are the pass's schedules: found, not recomputed.
  PermutationTables T(P.Program, P.Schedules.get());
  int Planes = 0;
  for (const ir::Permutation &Perm : P.Program.Perms)
    if (ir::isBlockLocalTable(Perm.Kind)) {
      ++Planes;
      CHECK(std::find(Made.begin(), Made.end(), T.hmmSchedule(Perm.Name).get()) != Made.end());
    }
  CHECK(Planes == 3 * 2 * HmmSchedule::NumPasses);
  CHECK(P.Schedules->size() == 3);
  (void)codegen::compileToCuda(P, {});
  CHECK(P.Schedules->size() == 3); // codegen's side file read the same ones

  // Another run makes its own: nothing outlives a run.
  const PipelineResult Again = runPipeline(sampleOrFail("offline_permutation_scheduled.bw", {{"N", 4096}}));
  for (const ColoredScheduleReport &C : Again.Colored)
    if (C.Hmm) {
      CHECK(std::find(Made.begin(), Made.end(), C.Hmm->Schedule.get()) == Made.end());
      const auto Same = std::find_if(P.Colored.begin(), P.Colored.end(),
                                     [&](const ColoredScheduleReport &X) { return X.Kernel == C.Kernel; });
      REQUIRE(Same != P.Colored.end());
      for (int Pass = 0; Pass < HmmSchedule::NumPasses; ++Pass) {
        const auto A = C.Hmm->Schedule->s(Pass), B = Same->Hmm->Schedule->s(Pass);
        CHECK(std::equal(A.begin(), A.end(), B.begin(), B.end()));
      }
    }
}

TEST_CASE("BeforeAnalyze sees the program every earlier pass made: the side file planned there is codegen's") {
  PipelineOptions PO;
  int Calls = 0;
  codegen::CodegenOptions CO;
  CO.InlineTableLimit = 0; // every table to the side file
  codegen::SideFile Planned;
  PO.BeforeAnalyze = [&](const PipelineResult &R) {
    ++Calls;
    CHECK_FALSE(R.Analyzed);
    CHECK(R.Analyses.empty());
    CHECK(R.Checked);
    CHECK(R.Program.findLaunch("permute_random") != nullptr); // seed 001's passes are in
    Planned = codegen::planSideFile(R, CO);
  };
  const PipelineResult P = runPipeline(sampleOrFail("offline_permutation_scheduled.bw", {{"N", 4096}}), PO);
  CHECK(Calls == 1);
  const codegen::CompileResult C = codegen::compileToCuda(P, CO);
  REQUIRE_FALSE(C.SideFile.empty());
  REQUIRE(Planned.Tables.size() == C.SideFile.Tables.size());
  CHECK(Planned.size() == C.SideFile.size());
  for (std::size_t I = 0; I < Planned.Tables.size(); ++I) {
    CHECK(Planned.Tables[I].Offset == C.SideFile.Tables[I].Offset);
    CHECK(Planned.Tables[I].Hash == C.SideFile.Tables[I].Hash);
  }
  CHECK(Planned.bytes() == C.SideFile.bytes());
}

TEST_CASE("the lint's figures through the analyze pass, and RecordErrors keeping the run going") {
  const char *Shared = R"(target sm_90
kernel k(a: global f32[1024]) grid (4) block (256) {
  shared t: f32[32][32]
  t[tx % 32][tx / 32] = a[bx * 256 + tx]
  sync
  a[bx * 256 + tx] = t[tx / 32][tx % 32]
}
)";
  const ir::Program Prog = parseOrFail(Shared);
  PipelineOptions PO;
  PO.Passes = {PassId::Check, PassId::Analyze};
  PO.Analyze.Lint = LintSiteOptions{};
  const PipelineResult P = runPipeline(Prog, PO);
  REQUIRE(P.LintSites.size() == 1);
  CHECK(P.Analyses.empty());
  const std::vector<LintSite> Direct = lintSites(Prog, Prog.Kernels.front());
  REQUIRE(P.LintSites.front().size() == Direct.size());
  for (std::size_t I = 0; I < Direct.size(); ++I) {
    CHECK(P.LintSites.front()[I].Loc == Direct[I].Loc);
    CHECK(P.LintSites.front()[I].Wavefronts.Max == Direct[I].Wavefronts.Max);
    CHECK(P.LintSites.front()[I].Sectors.Max == Direct[I].Sectors.Max);
  }
  CHECK(std::any_of(Direct.begin(), Direct.end(), [](const LintSite &S) { return S.Wavefronts.Max == 32; }));
  CHECK(P.secondsOf(PassId::Analyze) > 0);
  CHECK(P.Seconds.size() == 2);

  // An index out of bounds: both passes throw; with RecordErrors each error
  // is kept by pass and the run ends normally, without figures.
  const char *Outside = R"(target sm_90
kernel k(a: global f32[256]) threads 256 {
  a[tid + 1] = 1
}
)";
  CHECK_THROWS_AS(runPipeline(parseOrFail(Outside), PO), UserError);
  PO.RecordErrors = true;
  const PipelineResult E = runPipeline(parseOrFail(Outside), PO);
  REQUIRE(E.errorOf(PassId::Analyze));
  CHECK(E.errorOf(PassId::Analyze)->diagnostic().Message.find("is 256, outside 0..255") != std::string::npos);
  CHECK_FALSE(E.Analyzed);
  CHECK(E.LintSites.empty());
  CHECK(E.errorOf(PassId::BindSizes) == nullptr);
  CHECK(E.Seconds.size() == 2);
}

TEST_CASE("with Lanes, the analyze pass samples each site's warps for the HTML report, as the walk gives them") {
  PipelineOptions PO;
  PO.Analyze.Lanes = true;
  const PipelineResult P = runPipeline(parseOrFail(TwoKernels), PO);
  std::size_t Sites = 0;
  for (const KernelReport &R : P.Analyses)
    for (const AccessSiteReport &S : R.Sites) {
      ++Sites;
      const SiteLanes *L = P.lanesOf(R.Kernel, S.Node.Read->Site);
      REQUIRE(L);
      const ir::Kernel &K = *P.Program.findKernel(R.Kernel);
      CHECK(*L == sampleSiteLanes(P.Program, K, S.Node.Read, {}));
      CHECK_FALSE(L->Executions.empty());
    }
  CHECK(Sites == 4);
  CHECK(P.Lanes.size() == Sites);
  // Without it, none are walked.
  CHECK(runPipeline(parseOrFail(TwoKernels)).Lanes.empty());

  // Over every size: walked in the program bound to the representative sizes.
  PipelineOptions E;
  E.Passes = {PassId::BindSizes, PassId::LayoutAuto, PassId::Check, PassId::Analyze};
  E.Analyze.EverySize = true;
  E.Analyze.Lanes = true;
  const PipelineResult G = runPipeline(sampleOrFail("transpose_any_shape.bw"), E);
  REQUIRE_FALSE(G.EverySize.empty());
  for (const AllSizesReport &R : G.EverySize)
    for (const AllSizesSite &S : R.Sites) {
      REQUIRE(S.Node);
      const SiteLanes *L = G.lanesOf(R.Kernel, S.Node->Site);
      REQUIRE(L);
      const ir::Kernel &K = *G.Program.findKernel(R.Kernel);
      CHECK(*L == sampleSiteLanes(G.Program, K, ir::findSite(K, S.Node->Site), {}));
    }
}
