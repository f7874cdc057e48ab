// schedule colored: any one-to-one shared-memory copy becomes conflict-free,
// and the rewritten copy moves every element where the original did.

#include "analysis/passes/ColoredSchedule.h"
#include "analysis/passes/KernelAnalysis.h"
#include "analysis/passes/PermutationTables.h"
#include "dsl/Parser.h"
#include "ir/Printer.h"
#include "tests/support/ProgramFixtures.h"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sstream>

using namespace bankwise;
using bankwise::testing::parseOrFail;
using bankwise::testing::sampleOrFail;

namespace {

std::string errorOf(ir::Program P) {
  try {
    applyColoredSchedules(P);
  } catch (const UserError &E) {
    return E.diagnostic().Message;
  }
  return "";
}

} // namespace

TEST_CASE("every named and random permutation: conflict-free, and b[P(i)] = a[i]") {
  const std::vector<std::string> Perms = {
      "identity(N)", "shuffle(N)", "bitreverse(N)", "transpose(32, N / 32)",
      "stride(N, 8)", "random(N, seed: 1)", "random(N, seed: 2)"};
  for (const std::string &Decl : Perms) {
    CAPTURE(Decl);
    const std::string Text = fmt::format(R"(machine dmm(w: 32, l: 1)
param N = 2048
permutation P = {}
kernel move(a: shared f32[N], b: shared f32[N]) threads N schedule colored {{
  b[P(tid)] = a[tid]
}}
)",
                                         Decl);
    ir::Program Prog = parseOrFail(Text);
    const ir::Program Before = Prog;
    auto [Rewritten, Reports] = applyColoredSchedules(Prog);
    Prog = std::move(Rewritten);
    REQUIRE(Reports.size() == 1);
    // Execute the rewritten copy on the CPU: b[D(k)] = a[S(k)].
    PermutationTables T(Prog), TB(Before);
    const Permutation &P = TB.get("P");
    const Permutation &S = T.get(Reports[0].SrcName), &D = T.get(Reports[0].DstName);
    std::vector<std::int64_t> A(2048), B(2048, -1);
    for (std::size_t I = 0; I < A.size(); ++I)
      A[I] = static_cast<std::int64_t>(I) * 7 + 3;
    for (std::uint64_t K = 0; K < 2048; ++K)
      B[D(K)] = A[S(K)];
    for (std::uint64_t I = 0; I < 2048; ++I)
      REQUIRE(B[P(I)] == A[I]);
    // And every warp reads and writes 32 distinct banks.
    const KernelReport R = analyzeKernel(Prog, Prog.Kernels[0]);
    for (const AccessSiteReport &Site : R.Sites)
      if (Site.Array == "a" || Site.Array == "b")
        CHECK(Site.Congestion.Max == 1);
    // As written, bit reversal and random permutations conflict on the
    // write; the identity does not.
    const KernelReport W = analyzeKernel(Before, Before.Kernels[0]);
    for (const AccessSiteReport &Site : W.Sites)
      if (Site.Array == "b") {
        if (Decl.starts_with("random") || Decl.starts_with("bitreverse"))
          CHECK(Site.Congestion.Max > 1);
        if (Decl.starts_with("identity"))
          CHECK(Site.Congestion.Max == 1);
      }
  }
}

TEST_CASE("a gather through a permutation table and a grid") {
  ir::Program Prog = parseOrFail(R"(machine dmm(w: 32, l: 1)
param N = 4096
permutation P = random(N, seed: 5)
kernel gather(a: shared f32[N], b: shared f32[N], q: shared i32[N] holds inverse(P))
    grid (N / 256) block (256) schedule colored {
  b[tid] = a[q[tid]]
}
)");
  Prog = applyColoredSchedules(Prog).Program;
  const KernelReport R = analyzeKernel(Prog, Prog.Kernels[0]);
  for (const AccessSiteReport &S : R.Sites)
    if (S.Array == "a" || S.Array == "b")
      CHECK(S.Congestion.Max == 1);
}

TEST_CASE("schedule colored rejects what it cannot schedule") {
  CHECK(errorOf(parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel k(a: shared f32[64], b: shared f32[64]) threads 64 schedule colored {
  b[tid / 2] = a[tid]
}
)")).find("threads tid = 0 and tid = 1 both writes element 0") != std::string::npos);
  CHECK(errorOf(parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel k(a: shared f32[64], b: shared f32[64]) threads 64 schedule colored {
  let x = 1
  b[tid] = a[tid]
}
)")).find("exactly one copy") != std::string::npos);
  CHECK(errorOf(parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel k(a: shared f32[128], b: shared f32[64]) threads 64 schedule colored {
  b[tid] = a[tid]
}
)")).find("'a' has 128 elements") != std::string::npos);
  CHECK(errorOf(parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel k(a: shared f32[48], b: shared f32[48]) threads 48 schedule colored {
  b[tid] = a[tid]
}
)")).find("whole warps") != std::string::npos);
}

TEST_CASE("schedule colored round-trips through the printer") {
  const ir::Program P = parseOrFail(R"(machine dmm(w: 32, l: 1)
kernel k(a: shared f32[64], b: shared f32[64]) threads 64 schedule colored {
  b[63 - tid] = a[tid]
}
)");
  CHECK(P.Kernels[0].Schedule == ir::KernelSchedule::Colored);
}

// Indices that are tables applied to tid give the copy's map as f o g^-1,
// read through the tables' inverses; any other index is evaluated thread
// by thread and checked. Both must find the same map.
TEST_CASE("chains of tables and the thread-by-thread path agree on the copy") {
  ir::Program Prog = parseOrFail(R"(machine dmm(w: 32, l: 1)
param N = 2048
permutation P = random(N, seed: 5)
permutation Q = transpose(32, N / 32)
permutation R = bitreverse(N)
permutation S = stride(N, 16)
kernel direct(a: shared f32[N], b: shared f32[N], p: shared u32[N] holds inverse(S))
    threads N schedule colored {
  b[P(inverse(Q)(tid))] = a[R(p[tid])]
}
kernel walked(a: shared f32[N], b: shared f32[N], p: shared u32[N] holds inverse(S))
    threads N schedule colored {
  b[P(inverse(Q)(tid)) + 0] = a[R(p[tid]) * 1]
}
)");
  auto [Rewritten, Reports] = applyColoredSchedules(Prog);
  Prog = std::move(Rewritten);
  REQUIRE(Reports.size() == 2);
  const ir::Permutation *Direct = Prog.findPerm(Reports[0].PermName);
  const ir::Permutation *Walked = Prog.findPerm(Reports[1].PermName);
  REQUIRE(Direct);
  REQUIRE(Walked);
  CHECK(Direct->ArgValues == Walked->ArgValues);
  // Map[g(t)] = f(t), from the definitions.
  PermutationTables T(Prog);
  for (std::uint64_t Tid = 0; Tid < 2048; ++Tid) {
    const std::uint64_t G = T.get("R")(T.get("S", true)(Tid)), F = T.get("P")(T.get("Q", true)(Tid));
    REQUIRE(static_cast<std::uint64_t>(Direct->ArgValues[G]) == F);
  }
}

// A global copy becomes three ordinary kernels and a launch: the program
// after the pass prints as .bw text that parses back to the same program,
// and the analysis of the text gives the same figures. The map here is no
// table, so the pass declares it as a list.
TEST_CASE("schedule colored on a global copy: the pass kernels and their launch round-trip through the printer") {
  const ir::Program Written = parseOrFail(R"(target sm_90
param N = 4096
kernel scatter(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) schedule colored {
  b[(tid * 5) % N] = a[tid]
}
)");
  const ColoredScheduling C = applyColoredSchedules(Written);
  const ir::Program &Prog = C.Program;
  REQUIRE(C.Reports.size() == 1);
  REQUIRE(C.Reports[0].Hmm);
  CHECK(Prog.findKernel("scatter") == nullptr);
  REQUIRE(Prog.Launches.size() == 1);
  CHECK(Prog.Launches[0].Name == "scatter");
  CHECK(Prog.Launches[0].Kernels == std::vector<std::string>{"scatter_pass0", "scatter_pass1", "scatter_pass2"});
  REQUIRE(Prog.findPerm("colored_scatter_P"));
  CHECK(Prog.findPerm("colored_scatter_s1")->Kind == ir::PermKind::HmmSrc);
  const std::string Text = ir::print(Prog);
  CAPTURE(Text);
  ir::Program Again = parseOrFail(Text);
  // A list the pass built has values and no expressions; the parser keeps both.
  for (ir::Permutation &P : Again.Perms)
    if (P.Kind == ir::PermKind::List)
      P.Args.clear();
  CHECK(Again == Prog);
  // Reports list sites by location: the pass's nodes all have the copy's,
  // the text's have their own, so sites are compared by what they access.
  auto Figures = [](const KernelReport &R) {
    std::vector<std::string> Out;
    for (const AccessSiteReport &S : R.Sites)
      Out.push_back(fmt::format("{} {} {}: congestion {}, wavefronts {}, sectors {}", S.Array, S.IsWrite,
                                static_cast<int>(S.Space), S.Congestion.str(), S.Wavefronts.str(), S.Sectors.str()));
    std::sort(Out.begin(), Out.end());
    return Out;
  };
  for (const ir::Kernel &K : Prog.Kernels) {
    CAPTURE(K.Name);
    const KernelReport A = analyzeKernel(Prog, K), B = analyzeKernel(Again, *Again.findKernel(K.Name));
    CHECK(Figures(A) == Figures(B));
    REQUIRE(A.Sites.size() == 8);
    for (const AccessSiteReport &S : A.Sites)
      CHECK(S.Congestion.Max <= 4); // strips: 4 rows of 8 words a warp
  }
  // The scatter as written: b[(5t) mod n] = a[t]; the passes move a[i] to
  // b[5i mod n] (the schedule's own reference).
  std::vector<std::uint32_t> A(4096);
  for (std::uint32_t I = 0; I < 4096; ++I)
    A[I] = I * 7 + 3;
  const std::vector<std::uint32_t> B = applyHmmSchedule(*C.Reports[0].Hmm->Schedule, A);
  for (std::uint32_t I = 0; I < 4096; ++I)
    REQUIRE(B[(I * 5) % 4096] == A[I]);
}

TEST_CASE("hmm_src and hmm_dst tables: what an array holding one holds, and what it may not be") {
  ir::Program Prog = parseOrFail(R"(target sm_90
param N = 4096
permutation P = random(N, seed: 3)
permutation S1 = hmm_src(P, pass: 1)
kernel k(v: global f32[N], s: global u16[N] holds S1) grid (N / 256) block (256) {
  v[tid] = 1
}
)");
  SchedulePlan Plan;
  PermutationTables T(Prog, &Plan);
  const TableView S = T.table("S1");
  const HmmSchedule &Sched = *T.hmmSchedule("S1");
  REQUIRE(S.size() == 4096);
  CHECK(S.bound() == Sched.blockWords(1));
  for (std::uint64_t I = 0; I < S.size(); ++I)
    REQUIRE(S(I) == Sched.s(1)[I]);
  // The schedule is P's, computed once, in the plan; an equal table (P
  // built again) finds it by its contents.
  CHECK(Plan.size() == 1);
  CHECK(T.hmmSchedule("S1").get() == Plan.get(T.share("P")).get());
  PermutationTables Again(Prog, &Plan);
  CHECK(Again.hmmSchedule("S1").get() == &Sched);
  CHECK(Plan.size() == 1);
  // Nothing is kept for the process: tables without a plan compute their own.
  PermutationTables Alone(Prog);
  CHECK(Alone.hmmSchedule("S1").get() != &Sched);
  CHECK(Alone.table("S1")(7) == S(7));
  CHECK_THROWS_AS(T.get("S1"), UserError);       // not a permutation
  CHECK_THROWS_AS(T.table("S1", true), UserError); // no inverse
}

TEST_CASE("hmm_src(P, pass: k, bytes: 8): the planes of the shape for 8-byte elements") {
  const std::string Text = R"(target sm_90
param N = 4096
permutation P = random(N, seed: 3)
permutation S1 = hmm_src(P, pass: 1)
permutation S8 = hmm_src(P, pass: 1, bytes: 8)
permutation D8 = hmm_dst(inverse(P), pass: 2, bytes: 8)
kernel k(v: global f32[N], s: global u16[N] holds S8) grid (N / 256) block (256) {
  v[tid] = 1
}
)";
  ir::Program Prog = parseOrFail(Text);
  SchedulePlan Plan;
  PermutationTables T(Prog, &Plan);
  const HmmSchedule &Four = *T.hmmSchedule("S1"), &Eight = *T.hmmSchedule("S8");
  CHECK(Four.shape() == chooseSm90Shape(4096, 4));
  CHECK(Eight.shape() == chooseSm90Shape(4096, 8));
  CHECK(Eight.shape().StripCols == 4);
  CHECK(T.hmmSchedule("S8").get() == Plan.get(T.share("P"), 8).get());
  CHECK(Plan.size() == 2); // P's for 4 and for 8 bytes
  CHECK(T.hmmSchedule("D8")->shape() == Eight.shape());
  const TableView S = T.table("S8");
  CHECK(S.bound() == Eight.blockWords(1)); // a strip of 4 columns: 4R
  CHECK(Eight.blockWords(1) == 4 * Eight.shape().Rows);
  for (std::uint64_t I = 0; I < S.size(); ++I)
    REQUIRE(S(I) == Eight.s(1)[I]);
  // Printed back as written.
  const std::string Printed = ir::print(Prog);
  CHECK(Printed.find("permutation S8 = hmm_src(P, pass: 1, bytes: 8)") != std::string::npos);
  CHECK(Printed.find("permutation S1 = hmm_src(P, pass: 1)\n") != std::string::npos);
  // Only 4 and 8 have shapes.
  DiagnosticEngine D;
  dsl::parseProgram("target sm_90\npermutation P = random(4096, seed: 3)\n"
                    "permutation S = hmm_src(P, pass: 0, bytes: 2)\n",
                    "bad.bw", D);
  REQUIRE(D.hasErrors());
  CHECK(D.diagnostics().front().Message.find("bytes: 2 has no sm_90 shape") != std::string::npos);
}
