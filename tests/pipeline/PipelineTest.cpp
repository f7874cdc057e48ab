// The pipeline's result is what every later stage reads: the analyze pass's
// figures (which codegen quotes without analyzing again), the schedule plan
// (seed 001's schedules, computed once per run and never kept for the
// process), the check pass's findings (handed to the command before the
// analysis runs), and the options that choose what the analyze pass
// analyzes.
#include <doctest/doctest.h>

#include "../support/ProgramFixtures.h"
#include "analysis/passes/ArrayLayout.h"
#include "analysis/passes/PermutationTables.h"
#include "codegen/Codegen.h"
#include "ir/Sites.h"
#include "ir/Walk.h"
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
  PO.Passes = {PassId::BindSizes, PassId::ScheduleColored, PassId::LayoutAuto, PassId::PlaceShared, PassId::Check,
               PassId::ValueFacts};
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

TEST_CASE("with Lanes, the analyze pass samples each site's warps for the HTML report and draws them") {
  PipelineOptions PO;
  PO.Analyze.Lanes = true;
  const PipelineResult P = runPipeline(parseOrFail(TwoKernels), PO);
  std::size_t Sites = 0;
  for (const KernelReport &R : P.Analyses)
    for (const AccessSiteReport &S : R.Sites) {
      ++Sites;
      const SiteDrawings *D = P.drawingsOf(R.Kernel, S.Node.Read->Site);
      REQUIRE(D);
      const ir::Kernel &K = *P.Program.findKernel(R.Kernel);
      CHECK(D->Lanes == sampleSiteLanes(P.Program, K, S.Node.Read, {}));
      CHECK_FALSE(D->Lanes.Executions.empty());
      CHECK(D->Now == drawLanes(D->Lanes, arrayLayout(*P.Program.findArray(K, S.Array))));
      CHECK_FALSE(D->AsWritten); // the program as read was not kept
    }
  CHECK(Sites == 4);
  CHECK(P.Drawings.size() == Sites);
  // Without it, none are walked.
  CHECK(runPipeline(parseOrFail(TwoKernels)).Drawings.empty());

  // With the program as read kept, a site whose layout auto changed its
  // array's layout is drawn under both, the others under the one layout.
  PipelineOptions T = PO;
  T.Analyze.KeepAsRead = true;
  const PipelineResult Tiled = runPipeline(sampleOrFail("transpose_tiled.bw"), T);
  std::size_t Changed = 0, Kept = 0, Fixed = 0;
  for (const KernelReport &R : Tiled.Analyses)
    for (const AccessSiteReport &S : R.Sites) {
      const SiteDrawings *D = Tiled.drawingsOf(R.Kernel, S.Node.Read->Site);
      REQUIRE(D);
      const ir::Kernel &K = *Tiled.Program.findKernel(R.Kernel);
      const LayoutFn Now = arrayLayout(*Tiled.Program.findArray(K, S.Array));
      const LayoutFn Was = arrayLayout(*Tiled.AsRead->findArray(*Tiled.AsRead->findKernel(R.Kernel), S.Array));
      CHECK(D->Now == drawLanes(D->Lanes, Now));
      if (Was == Now) {
        ++Kept;
        CHECK_FALSE(D->AsWritten);
        continue;
      }
      ++Changed;
      REQUIRE(D->AsWritten);
      CHECK(*D->AsWritten == drawLanes(D->Lanes, Was));
      Fixed += D->AsWritten->Cost > D->Now.Cost; // the tile's conflicts, and layout auto's fix
    }
  CHECK(Changed > 0);
  CHECK(Fixed > 0);
  CHECK(Kept > 0);

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
      const SiteDrawings *D = G.drawingsOf(R.Kernel, S.Node->Site);
      REQUIRE(D);
      const ir::Kernel &K = *G.Program.findKernel(R.Kernel);
      CHECK(D->Lanes == sampleSiteLanes(G.Program, K, ir::findSite(K, S.Node->Site), {}));
    }
}

TEST_CASE("codegen refuses a result without the place-shared pass, and names the kernel") {
  PipelineOptions PO;
  PO.Passes = {PassId::Check, PassId::ValueFacts, PassId::Analyze};
  const PipelineResult P = runPipeline(parseOrFail(TwoKernels), PO);
  CHECK(P.Placements.empty());
  try {
    (void)codegen::compileToCuda(P, {});
    FAIL("expected std::logic_error");
  } catch (const std::logic_error &E) {
    CHECK(std::string(E.what()).find("kernel 'copy' has no shared placement") != std::string::npos);
  }
}

TEST_CASE("place-shared keeps the largest staged array that does not fit in global memory, the rest in dynamic "
          "shared memory, and codegen emits its placement") {
  // 120000 + 60000 + 16000 bytes fit sm_90 (the .bw's target), not sm_80's
  // 166912 a block (--arch); without 'big', 76000, over the 49152 a block
  // has without opting in.
  const char *Big = R"(target sm_90
kernel k(big: shared f32[30000], mid: shared f32[15000], small: shared f32[4000], out: global f32[256]) threads 256 {
  out[tid] = big[tid] + mid[tid] + small[tid]
}
)";
  PipelineOptions PO;
  PO.Arch = "sm_80";
  const PipelineResult P = runPipeline(parseOrFail(Big), PO);
  const SharedPlacement *S = P.placementOf("k");
  REQUIRE(S);
  REQUIRE(S->Arrays.size() == 3);
  CHECK(S->Arrays[0].Array == "big");
  CHECK(S->Arrays[0].Bytes == 120000);
  CHECK(S->Arrays[0].Demoted);
  CHECK(S->Arrays[0].Offset == -1);
  CHECK_FALSE(S->Arrays[1].Demoted);
  CHECK(S->Arrays[1].Offset == 0);
  CHECK(S->Arrays[2].Offset == 60000);
  CHECK(S->Dynamic);
  CHECK(S->DynamicBytes == 76000);
  CHECK(S->StaticBytes == 76000);
  CHECK_FALSE(S->Error);
  REQUIRE(S->Warnings.size() == 1);
  CHECK(S->Warnings[0].Message.find("shared array 'big' (120000 bytes) does not fit sm_80's 166912 bytes") == 0);
  // Each staged copy: 8 warps of 256 threads over consecutive f32, one
  // wavefront and four sectors a warp; ceil(15000 / 256) = 59 rounds.
  CHECK(S->Arrays[1].Copy == StagingCost{1, 4, 1, 59 * 8});
  CHECK(S->Arrays[2].Copy == StagingCost{1, 4, 1, 16 * 8});
  CHECK(describe(*S) == "# place-shared: kernel 'k': 'mid' 60000 bytes staged at 0, 'small' 16000 bytes staged at "
                        "60000: 76000 bytes, dynamic; in global memory: 'big'\n");

  codegen::CodegenOptions CO;
  CO.Arch = "sm_80";
  const codegen::CompileResult C = codegen::compileToCuda(P, CO);
  CHECK(count(C.Source, "extern __shared__ __align__(16) unsigned char bw_smem[]; // 76000 bytes") == 1);
  CHECK(count(C.Source, "reinterpret_cast<float *>(bw_smem + 60000)") == 1);
  CHECK(count(C.Source, "big_global") == 0); // in global memory: not staged
  REQUIRE(C.Warnings.size() == 1);
  CHECK(C.Warnings[0].Message == S->Warnings[0].Message);
  REQUIRE(C.Kernels.size() == 1);
  CHECK(C.Kernels[0].Demoted == std::vector<std::string>{"big"});
  REQUIRE(C.Kernels[0].Staged.size() == 2);
  CHECK(C.Kernels[0].Staged[0].Copy == S->Arrays[1].Copy);
  CHECK(C.Kernels[0].SharedBytes == 76000);
  CHECK(C.Kernels[0].DynamicShared);

  // sm_90 holds them all: nothing demoted, static shared memory above 48 KB
  // is dynamic all the same.
  const PipelineResult Fits = runPipeline(parseOrFail(Big));
  REQUIRE(Fits.placementOf("k"));
  CHECK(Fits.placementOf("k")->Warnings.empty());
  CHECK(Fits.placementOf("k")->DynamicBytes == 196000);
  // An unknown target places nothing, and codegen names the known ones.
  PipelineOptions Unknown;
  Unknown.Arch = "sm_1";
  const PipelineResult U = runPipeline(parseOrFail(Big), Unknown);
  CHECK(U.Placements.empty());
  CO.Arch = "sm_1";
  CHECK_THROWS_WITH_AS(codegen::compileToCuda(U, CO), doctest::Contains("unknown architecture 'sm_1'"), UserError);
}

TEST_CASE("place-shared records what CUDA cannot compile, and codegen throws it") {
  // 180000 bytes in the kernel's body: sm_90's, not sm_80's (--arch).
  const char *TooBig = R"(target sm_90
kernel k(out: global f32[256]) threads 256 {
  shared t: f32[45000]
  t[tid] = 1.0
  sync
  out[tid] = t[tid]
}
)";
  PipelineOptions PO;
  PO.Arch = "sm_80";
  const PipelineResult P = runPipeline(parseOrFail(TooBig), PO);
  REQUIRE(P.placementOf("k"));
  REQUIRE(P.placementOf("k")->Error);
  CHECK(P.placementOf("k")->Error->diagnostic().Message ==
        "kernel 'k' needs 180000 bytes of shared memory; sm_80 has 166912 per block");
  CHECK(P.Analyzed); // analyze is not codegen: its figures stand
  codegen::CodegenOptions CO;
  CO.Arch = "sm_80";
  CHECK_THROWS_WITH_AS(codegen::compileToCuda(P, CO), doctest::Contains("needs 180000 bytes"), UserError);

  const char *Written = R"(target sm_90
kernel k(s: shared f32[256], a: global f32[512]) grid (2) block (256) {
  s[tx] = a[tid]
}
)";
  const PipelineResult W = runPipeline(parseOrFail(Written));
  REQUIRE(W.placementOf("k"));
  REQUIRE(W.placementOf("k")->Error);
  CHECK(W.placementOf("k")->Error->diagnostic().Message ==
        "shared array 's' is written by kernel 'k' of 2 blocks: codegen cannot give every block its own copy back");
}

TEST_CASE("codegen refuses a result without the value-facts pass, and names the kernel") {
  PipelineOptions PO;
  PO.Passes = {PassId::PlaceShared, PassId::Check, PassId::Analyze};
  const PipelineResult P = runPipeline(parseOrFail(TwoKernels), PO);
  CHECK(P.Values.empty());
  try {
    (void)codegen::compileToCuda(P, {});
    FAIL("expected std::logic_error");
  } catch (const std::logic_error &E) {
    CHECK(std::string(E.what()).find("kernel 'copy' has no value facts") != std::string::npos);
  }
}

TEST_CASE("the value-facts pass's facts survive the result's move and equal facts computed afresh") {
  // Runtime sizes, loop counters, tables of block indices.
  const PipelineResult P = runPipeline(sampleOrFail("transpose_any_shape.bw"));
  REQUIRE(P.Values.size() == P.Program.Kernels.size());
  for (const ir::Kernel &K : P.Program.Kernels) {
    const KernelValueFacts *V = P.valuesOf(K.Name);
    REQUIRE(V);
    REQUIRE(V->Facts);
    CHECK_FALSE(V->Error);
    ValueFactsInput In;
    In.Runtime = {P.RuntimeParams.begin(), P.RuntimeParams.end()};
    In.TableBound = [](const std::string &, bool) -> std::uint64_t { throw std::logic_error("no tables here"); };
    const ValueFacts Fresh(P.Program, K, In);
    CHECK(V->Facts->RuntimeGrid == Fresh.RuntimeGrid);
    CHECK(V->Facts->IntsFit32 == Fresh.IntsFit32);
    CHECK(V->Facts->HasCompute == Fresh.HasCompute);
    std::size_t Exprs = 0;
    ir::forEachStmtExpr(K.Body, [&](const ir::Expr &Root) {
      ir::forEachSubexpr(Root, [&](const ir::Expr &X) {
        ++Exprs;
        CHECK(V->Facts->classOf(X) == Fresh.classOf(X));
        CHECK((V->Facts->rangeOf(X) == Fresh.rangeOf(X))); // (WideInt has no doctest printer)
        CHECK(V->Facts->uniform(X) == Fresh.uniform(X));
      });
    });
    CHECK(Exprs > 10);
  }

  // Seed 001's planes: their bounds come from the schedule plan.
  const PipelineResult S = runPipeline(sampleOrFail("offline_permutation_scheduled.bw", {{"N", 4096}}));
  std::size_t Planes = 0;
  for (const KernelValueFacts &V : S.Values) {
    CHECK_FALSE(V.Error);
    const ir::Kernel &K = *S.Program.findKernel(V.Kernel);
    ir::forEachStmtExpr(K.Body, [&](const ir::Expr &Root) {
      ir::forEachSubexpr(Root, [&](const ir::Expr &X) {
        if (const auto *A = X.as<ir::ArrayRead>())
          if (const ir::Array *Arr = S.Program.findArray(K, A->Array); Arr && Arr->Holds) {
            ++Planes;
            const ValueRange R = V.Facts->rangeOf(X);
            CHECK((R.Known && R.Lo == 0 && R.Hi > 0));
          }
      });
    });
  }
  CHECK(Planes > 0);
}

TEST_CASE("a value codegen cannot type is the kernel's value-facts error, which codegen throws") {
  const char *Vector = R"(target sm_90
kernel k(a: global f32x4[64], b: global f32x4[64]) threads 64 {
  b[tid] = a[tid] + a[tid]
}
)";
  const PipelineResult P = runPipeline(parseOrFail(Vector));
  REQUIRE(P.valuesOf("k"));
  REQUIRE(P.valuesOf("k")->Error);
  CHECK_FALSE(P.valuesOf("k")->Facts);
  CHECK(P.Analyzed); // analyze is not codegen: its figures stand
  try {
    (void)codegen::compileToCuda(P, {});
    FAIL("expected UserError");
  } catch (const UserError &E) {
    CHECK(E.diagnostic().Message == P.valuesOf("k")->Error->diagnostic().Message);
  }
}
