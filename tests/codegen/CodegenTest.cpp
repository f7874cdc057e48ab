// Codegen tests. Golden files (tests/codegen/golden/, compared byte for
// byte; a difference prints its first line; BANKWISE_UPDATE_GOLDEN=1
// rewrites them): for every sample, what the pipeline decided (each
// schedule, each layout auto with every candidate's cost, then the program
// after the passes, as --dump-ir-after prints it) and the report, one site
// a line; the whole generated code (kernels, harness, header) for three
// samples that between them use every kind of decision.
// Properties: output is deterministic; the templates' address functions are
// analysis/models/Layout.h's; their closed-form permutations are ir/'s; tables and
// the side file round-trip.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "analysis/passes/ColoredSchedule.h"
#include "analysis/models/Layout.h"
#include "analysis/passes/LayoutChoice.h"
#include "analysis/passes/PermutationTables.h"
#include "analysis/schedule/ConflictFree.h"
#include "analysis/schedule/HmmSchedule.h"
#include "codegen/Codegen.h"
#include "codegen/Tables.h"
#include "codegen/Templates.h"
#include "dsl/Parser.h"
#include "ir/Bind.h"
#include "ir/Eval.h"
#include "ir/Printer.h"
#include "pipeline/Pipeline.h"
#include "report/CompileReport.h"
#include "support/Random.h"

#include "bankwise/arith.cuh"
#include "bankwise/layout.cuh"
#include "bankwise/tables.cuh"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using namespace bankwise;

namespace {

/// Runs from the source root, so that "samples/x.bw" names the file in
/// comments and file() permutations resolve as they do for users.
struct InSourceDir {
  fs::path Old = fs::current_path();
  InSourceDir() { fs::current_path(BANKWISE_SOURCE_DIR); }
  ~InSourceDir() { fs::current_path(Old); }
};

std::string readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// The compile pipeline of `bankwise compile`, in process.
/// A sample through the pipeline and codegen, with what the pipeline
/// decided.
struct SampleBuild {
  PipelineResult Pipeline;
  codegen::CompileResult Code;
  std::string ReportJson; ///< compile --report's
};
SampleBuild buildSample(const std::string &RelPath, bool Harness = true, const dsl::ParamOverrides &Overrides = {},
                        std::uint64_t InlineLimit = 64 * 1024) {
  DiagnosticEngine Diags;
  ir::Program Prog = dsl::parseFile(RelPath, Diags, Overrides);
  if (Diags.hasErrors()) {
    std::ostringstream OS;
    Diags.print(OS);
    FAIL(OS.str());
  }
  SampleBuild B{runPipeline(std::move(Prog)), {}, {}};
  const PipelineResult &P = B.Pipeline;
  codegen::CodegenOptions O;
  const std::string Stem = fs::path(RelPath).stem().string();
  O.SourceName = RelPath;
  O.Namespace = Stem;
  O.HeaderInclude = Stem + ".h";
  O.SideFileName = Stem + ".tables.bin";
  O.Harness = Harness;
  O.InlineTableLimit = InlineLimit;
  B.Code = codegen::compileToCuda(P, O);
  B.ReportJson = report::compileReportJson(P, B.Code, {RelPath, O.Arch});
  return B;
}

/// Prog through the pipeline (every pass) and codegen.
codegen::CompileResult compileProgram(ir::Program Prog, const codegen::CodegenOptions &O = {}) {
  return codegen::compileToCuda(runPipeline(std::move(Prog)), O);
}

codegen::CompileResult compileSample(const std::string &RelPath, bool Harness = true,
                                     const dsl::ParamOverrides &Overrides = {},
                                     std::uint64_t InlineLimit = 64 * 1024) {
  return buildSample(RelPath, Harness, Overrides, InlineLimit).Code;
}

/// Empty when equal, else "line N: expected '...', got '...'".
std::string firstDifference(const std::string &Want, const std::string &Got) {
  std::istringstream A(Want), B(Got);
  std::string LA, LB;
  for (int Line = 1;; ++Line) {
    const bool HA = static_cast<bool>(std::getline(A, LA)), HB = static_cast<bool>(std::getline(B, LB));
    if (!HA && !HB)
      return Want == Got ? "" : "the files differ in their final newline";
    if (!HA || !HB || LA != LB)
      return fmt::format("line {}: expected '{}', got '{}'", Line, HA ? LA : "<end of file>",
                         HB ? LB : "<end of file>");
  }
}

void checkGolden(const fs::path &Golden, const std::string &Got) {
  if (const char *U = std::getenv("BANKWISE_UPDATE_GOLDEN"); U && std::string(U) == "1") {
    std::ofstream(Golden, std::ios::binary) << Got;
    MESSAGE("refreshed " << Golden.string());
    return;
  }
  REQUIRE_MESSAGE(fs::exists(Golden), Golden.string() << " is missing; run with BANKWISE_UPDATE_GOLDEN=1");
  const std::string Diff = firstDifference(readFile(Golden), Got);
  CHECK_MESSAGE(Diff.empty(), Golden.filename().string() << " differs at " << Diff
                                                         << " (refresh with BANKWISE_UPDATE_GOLDEN=1)");
}

/// A generated .cu as its goldens keep it: every pasted template collapsed
/// to one line naming it and the FNV-1a hash of its text (a template edit
/// is then one changed line per golden, and the template's own tests and
/// the nvcc tests check the text), split at codegen::HarnessMarker into the
/// module a user links and the harness.
struct GoldenParts {
  std::string Kernels, Harness;
};
GoldenParts goldenParts(const std::string &Source) {
  std::istringstream In(Source);
  std::string Line, Out;
  while (std::getline(In, Line)) {
    const std::string Begin = "// ---- templates/";
    if (Line.rfind(Begin, 0) == 0 && Line.find("end of templates/") == std::string::npos) {
      const std::string Path = Line.substr(Begin.size(), Line.size() - Begin.size() - 5);
      const std::string End = "// ---- end of templates/" + Path + " ----";
      std::string Skipped;
      while (std::getline(In, Line) && Line != End)
        Skipped += Line + "\n";
      const std::string_view Text = codegen::templateText(Path);
      Out += fmt::format("// ---- templates/{} pasted here: {} lines, FNV-1a {:016x} of the template ----\n", Path,
                         std::count(Skipped.begin(), Skipped.end(), '\n'),
                         codegen::fnv1a(reinterpret_cast<const unsigned char *>(Text.data()), Text.size()));
      continue;
    }
    Out += Line + "\n";
  }
  const std::size_t At = Out.find(codegen::HarnessMarker);
  if (At == std::string::npos)
    return {Out, ""};
  return {Out.substr(0, At), Out.substr(At)};
}

/// A report as its golden keeps it: the top level without its kernels, then
/// each kernel without its sites, then each site, one JSON line each (a
/// changed figure is one changed line, named by its site's location).
std::string reportLines(const std::string &ReportJson) {
  nlohmann::json J = nlohmann::json::parse(ReportJson);
  const nlohmann::json Kernels = J["kernels"];
  J.erase("kernels");
  std::string Out = J.dump() + "\n";
  for (nlohmann::json K : Kernels) {
    const nlohmann::json Sites = K["sites"];
    K.erase("sites");
    Out += "  " + K.dump() + "\n";
    for (const nlohmann::json &S : Sites)
      Out += "    " + S.dump() + "\n";
  }
  return Out;
}

/// What the pipeline decided, a line a decision: each schedule (what
/// replaced the copy; schedule auto's estimates), each layout auto with
/// every candidate's cost and worst sample (the chosen one starred); then
/// the program after the passes, as --dump-ir-after=layout-auto prints it.
std::string decisionLines(const PipelineResult &P) {
  std::string Out;
  for (const ColoredScheduleReport &C : P.Colored) {
    Out += fmt::format("schedule of kernel '{}' at line {}: {} -> {}, n = {}, w = {}", C.Kernel, C.Loc.Line, C.Src,
                       C.Dst, C.N, C.W);
    if (C.Hmm)
      Out += fmt::format(": seed 001's passes {}", fmt::join(C.Hmm->PassKernels, ", "));
    else if (C.Bits)
      Out += ": one tiled pass (schedule bits)";
    else if (!C.PermName.empty())
      Out += fmt::format(": seed 003's tables {}, {}, {}", C.PermName, C.SrcName, C.DstName);
    Out += "\n";
    if (C.Auto)
      Out += "  " + autoScheduleNote(C) + "\n";
  }
  for (const LayoutDecision &D : P.Layouts) {
    Out += fmt::format("layout auto of '{}' in {} at line {}: {} over {} warp executions, measured at {}\n", D.Array,
                       fmt::join(D.Kernels, ", "), D.Loc.Line, D.Metric, D.Executions,
                       D.MeasuredAt.empty() ? std::string("the bound sizes") : D.MeasuredAt);
    for (std::size_t I = 0; I < D.Candidates.size(); ++I) {
      const LayoutCandidate &C = D.Candidates[I];
      Out += fmt::format("  {} {}: cost {}, worst {}{}\n", I == D.Chosen ? '*' : ' ', C.Name, C.Cost, C.Worst,
                         C.Fits ? "" : ", does not fit");
    }
  }
  return Out + "# the program after the passes, each access site with its id (ir/Sites.h)\n" +
         ir::print(P.Program, ir::PrintOptions{.SiteIds = true});
}

/// The samples whose whole generated code is a golden: a padded tile, seed
/// 003's shared tables, runtime sizes with layout auto's skewed tiles.
const std::vector<std::string> CodeGoldens = {"transpose_tiled", "permutation_colored", "transpose_any_shape"};

std::vector<std::string> samples() {
  std::vector<std::string> Out;
  for (const auto &E : fs::directory_iterator(fs::path(BANKWISE_SOURCE_DIR) / "samples"))
    if (E.path().extension() == ".bw")
      Out.push_back("samples/" + E.path().filename().string());
  std::sort(Out.begin(), Out.end());
  return Out;
}

} // namespace

TEST_CASE("every sample's decisions and report equal their golden files, and three samples' code too") {
  InSourceDir Here;
  const fs::path Dir = BANKWISE_GOLDEN_DIR;
  std::vector<std::string> Stems;
  for (const std::string &S : samples()) {
    CAPTURE(S);
    const SampleBuild B = buildSample(S);
    const codegen::CompileResult &R = B.Code;
    const std::string Stem = fs::path(S).stem().string();
    Stems.push_back(Stem);
    // The decisions and the numbers; for three samples the code: the
    // kernels (templates by name and hash), the harness apart, the API
    // header.
    checkGolden(Dir / (Stem + ".decisions.txt"), decisionLines(B.Pipeline));
    checkGolden(Dir / (Stem + ".report.jsonl"), reportLines(B.ReportJson));
    const GoldenParts Parts = goldenParts(R.Source);
    REQUIRE_MESSAGE(!Parts.Harness.empty(), S << ": the harness marker is missing");
    if (std::find(CodeGoldens.begin(), CodeGoldens.end(), Stem) != CodeGoldens.end()) {
      checkGolden(Dir / (Stem + ".kernels.cu"), Parts.Kernels);
      checkGolden(Dir / (Stem + ".harness.cu"), Parts.Harness);
      checkGolden(Dir / (Stem + ".h"), R.Header);
    }
    // Seed 001's s and d planes (12 bytes per element) go to the side file at
    // the samples' default sizes; the golden .cu pins its bytes through the
    // FNV-1a hash the loader checks. Every other sample's tables fit the source.
    if (R.Source.find("seed 001's scheduled offline permutation") != std::string::npos)
      CHECK_MESSAGE(R.Source.find("bankwise::readTable<std::uint16_t>(bw_table_file") != std::string::npos,
                    S << ": the s and d planes should be read from the side file");
    else
      CHECK_MESSAGE(R.SideFile.empty(), S << ": a sample's tables should fit in the source");
  }
  // No stale golden files: each is one of the above, or the PyTorch
  // extension's (its own test case).
  for (const auto &E : fs::directory_iterator(Dir)) {
    const std::string Name = E.path().filename().string();
    const std::string Stem = Name.substr(0, Name.find('.')), Kind = Name.substr(Name.find('.'));
    const bool Code = std::find(CodeGoldens.begin(), CodeGoldens.end(), Stem) != CodeGoldens.end();
    const bool Torch = (Stem == "bit_reversal" && Kind == ".torch.cu") ||
                       (Stem == "transpose_any_shape" &&
                        (Kind == ".torch.cu" || Kind == ".loader.py" || Kind == ".setup.py"));
    CHECK_MESSAGE(std::find(Stems.begin(), Stems.end(), Stem) != Stems.end(),
                  E.path().string() << " belongs to no sample");
    CHECK_MESSAGE((Kind == ".decisions.txt" || Kind == ".report.jsonl" || Torch ||
                   (Code && (Kind == ".kernels.cu" || Kind == ".harness.cu" || Kind == ".h"))),
                  E.path().string() << " is not a golden file the tests read");
  }
}

TEST_CASE("output is deterministic") {
  InSourceDir Here;
  for (const char *S : {"samples/transpose_tiled.bw", "samples/permutation_conflict_free.bw"}) {
    const SampleBuild A = buildSample(S), B = buildSample(S);
    CHECK(A.Code.Source == B.Code.Source);
    CHECK(A.Code.Header == B.Code.Header);
    CHECK(A.ReportJson == B.ReportJson);
  }
}

TEST_CASE("layout templates compute analysis/models/Layout.h's addresses") {
  const std::vector<std::int64_t> Shape = {3, 32};
  auto Each = [&](const LayoutFn &F, auto &&Template) {
    for (std::int64_t I = 0; I < Shape[0]; ++I)
      for (std::int64_t J = 0; J < Shape[1]; ++J) {
        const std::int64_t Idx[2] = {I, J};
        REQUIRE(Template.offset(I, J) == F.map(Idx));
      }
  };
  Each(makeLayout(LayoutKind::Raw, Shape), RawLayout<32>{});
  Each(makeLayout(LayoutKind::Pad, Shape, 1), PadLayout<32, 1>{});
  Each(makeLayout(LayoutKind::Xor, Shape), XorLayout<32>{});
  Each(makeLayout(LayoutKind::Diagonal, Shape), DiagonalLayout<32>{});
  // RAP: r packed six 5-bit shifts per register (seed 002 Sec. VI).
  const LayoutFn Rap = makeLayout(LayoutKind::Rap, Shape, 0, 7);
  RapLayout<32, 5, 6> R{};
  for (int I = 0; I < 32; ++I)
    R.R[I / 6] |= static_cast<unsigned>(Rap.Table[static_cast<std::size_t>(I)]) << (5 * (I % 6));
  for (int I = 0; I < 32; ++I)
    CHECK(((R.R[I / 6] >> (5 * (I % 6))) & 31u) == static_cast<unsigned>(Rap.Table[static_cast<std::size_t>(I)]));
  Each(Rap, R);
  // Seed 002 Fig. 6: w = 4, r = (2, 0, 3, 1): (2, 2) -> 9.
  const RapLayout<4, 2, 1> Fig6{{2u | 0u << 2 | 3u << 4 | 1u << 6}};
  CHECK(Fig6.offset(2, 2) == 9);
}

TEST_CASE("closed-form permutations and arithmetic match ir/") {
  auto Perm = [](ir::PermKind K, std::vector<std::int64_t> Args, std::int64_t N) {
    ir::Permutation P;
    P.Kind = K;
    P.ArgValues = std::move(Args);
    P.Size = N;
    return P;
  };
  const ir::Permutation Shuffle = Perm(ir::PermKind::Shuffle, {64}, 64);
  const ir::Permutation Rev = Perm(ir::PermKind::Bitreverse, {64}, 64);
  const ir::Permutation Tr = Perm(ir::PermKind::Transpose, {4, 16}, 64);
  const ir::Permutation Stride = Perm(ir::PermKind::Stride, {64, 8}, 64);
  for (long long I = 0; I < 64; ++I) {
    CHECK(shufflePerm(I, 6) == *ir::applyClosedForm(Shuffle, I));
    CHECK(shuffleInverse(shufflePerm(I, 6), 6) == I);
    CHECK(bitReverse(I, 6) == *ir::applyClosedForm(Rev, I));
    CHECK(transposePerm(I, 4LL, 16LL) == *ir::applyClosedForm(Tr, I));
    CHECK(transposePerm(I, 64LL / 8, 8LL) == *ir::applyClosedForm(Stride, I));
  }
  for (long long A = -9; A <= 9; ++A)
    for (long long B : {-4LL, -3LL, 2LL, 5LL}) {
      CHECK(floorDiv(A, B) == ir::applyBinary(ir::BinaryOp::Div, A, B).Value);
      CHECK(floorMod(A, B) == ir::applyBinary(ir::BinaryOp::Mod, A, B).Value);
    }
  CHECK(log2Floor(9LL) == 3);
  CHECK(bitReverse(1LL, 4) == 8);
}

TEST_CASE("the side file's table hash: pieces give the whole's hash, every byte and the length count") {
  Rng G(11);
  std::vector<unsigned char> Bytes(4096 + 77);
  for (unsigned char &B : Bytes)
    B = static_cast<unsigned char>(G.below(256));
  const std::uint64_t Whole = bankwise::tableHash(Bytes.data(), Bytes.size());
  // Pieces of multiples of 32 bytes, then the rest.
  for (std::size_t Piece : {32u, 64u, 1024u, 4096u}) {
    bankwise::TableHash H;
    std::size_t At = 0;
    for (; At + Piece <= Bytes.size() - 77; At += Piece)
      H.update(Bytes.data() + At, Piece);
    H.update(Bytes.data() + At, Bytes.size() - At);
    CHECK(H.finish() == Whole);
  }
  // One flipped bit anywhere, or one zero byte more, changes it.
  for (std::size_t I = 0; I < Bytes.size(); I += 97) {
    std::vector<unsigned char> Bad = Bytes;
    Bad[I] ^= 1u << (I % 8);
    CHECK(bankwise::tableHash(Bad.data(), Bad.size()) != Whole);
  }
  std::vector<unsigned char> Longer = Bytes;
  Longer.push_back(0);
  CHECK(bankwise::tableHash(Longer.data(), Longer.size()) != Whole);
  CHECK(bankwise::tableHash(Bytes.data(), 0) != bankwise::tableHash(Bytes.data(), 1));
}

TEST_CASE("tables take the narrowest width and round-trip through the side file") {
  CHECK(codegen::narrowestWidth(256) == 1);
  CHECK(codegen::narrowestWidth(257) == 2);
  CHECK(codegen::narrowestWidth(65537) == 4);
  InSourceDir Here;
  // A limit of 0 bytes sends every table to the side file.
  const auto R = compileSample("samples/permutation_conflict_free.bw", false, {}, 0);
  REQUIRE(!R.SideFile.empty());
  const std::vector<unsigned char> SideBytes = R.SideFile.bytes();
  CHECK(SideBytes.size() == R.SideFile.size());
  CHECK(R.Source.find("bankwise::readTable<std::uint16_t>") != std::string::npos);
  const fs::path Side = fs::path(BANKWISE_TEST_TMPDIR) / "side.tables.bin";
  std::ofstream(Side, std::ios::binary).write(reinterpret_cast<const char *>(SideBytes.data()),
                                              static_cast<std::streamsize>(SideBytes.size()));
  // The schedule of the sample, read back as the generated host API does.
  ir::Program Prog;
  {
    DiagnosticEngine D;
    Prog = dsl::parseFile("samples/permutation_conflict_free.bw", D);
  }
  const Permutation P = randomPermutation(1024, 2013);
  const DmmSchedule Sched = scheduleConflictFree(P, 32);
  std::vector<std::uint16_t> S16(Sched.S.begin(), Sched.S.end());
  std::vector<std::int32_t> S;
  CHECK(bankwise::readTable<std::uint16_t>(Side.string().c_str(), 0, 1024,
                                           bankwise::tableHash(S16.data(), S16.size() * 2), S));
  CHECK(std::equal(S.begin(), S.end(), Sched.S.begin()));
  // The schedule executed on the CPU moves a[k] to b[P(k)].
  std::vector<std::uint32_t> A(1024);
  for (std::uint32_t I = 0; I < 1024; ++I)
    A[I] = I * 7 + 1;
  const auto B = applyDmmSchedule(Sched, A);
  for (std::uint32_t I = 0; I < 1024; ++I)
    REQUIRE(B[P(I)] == A[I]);
  // A corrupted file is refused.
  std::vector<std::int32_t> Bad;
  CHECK(!bankwise::readTable<std::uint16_t>(Side.string().c_str(), 2, 1024,
                                            bankwise::tableHash(S16.data(), S16.size() * 2), Bad));
}

TEST_CASE("64-bit index arithmetic only where a value needs it") {
  InSourceDir Here;
  const auto Small = compileSample("samples/transpose_tiled.bw", false, {{"N", 1024}});
  CHECK(Small.Source.find("using Index = int;") != std::string::npos);
  DiagnosticEngine D;
  const ir::Program Big = dsl::parseProgram("kernel k(a: global f32[3_000_000_000]) threads 32 {\n"
                                            "  a[tid * 90_000_000] = 0\n}\n",
                                            "big.bw", D);
  REQUIRE(!D.hasErrors());
  const auto R = compileProgram(Big);
  CHECK(R.Source.find("using Index = long long;") != std::string::npos);
  CHECK(R.Source.find("a[tid * 90000000]") != std::string::npos);
}

// Codegen finds each site's report by its IR node, not by its location:
// sites that share one (a macro in a linted kernel, a pass's expansion)
// each get their own comment above their own statement.
TEST_CASE("site comments follow the IR node, even where sites share a location") {
  DiagnosticEngine D;
  ir::Program Prog = dsl::parseProgram("target sm_90\nkernel k(a: global f32[1024], b: global f32[1024], "
                                       "c: global f32[2048]) threads 1024 {\n"
                                       "  b[tid] = a[tid]\n  c[2 * tid] = a[tid]\n}\n",
                                       "same.bw", D);
  REQUIRE(!D.hasErrors());
  const SourceLoc Here{"same.bw", 9, 4};
  for (ir::Stmt &St : Prog.Kernels[0].Body) {
    St.Loc = Here;
    if (auto *A = St.as<ir::Assign>())
      A->Value.Loc = Here;
  }
  const std::string Src = compileProgram(std::move(Prog)).Source;
  auto Count = [&](const std::string &Part) {
    std::size_t N = 0;
    for (std::size_t At = Src.find(Part); At != std::string::npos; At = Src.find(Part, At + 1))
      ++N;
    return N;
  };
  // Four sites, one comment each: b's write with sectors 4, c's stride-2
  // write with sectors 8, and a's read in each statement.
  CHECK(Count("// 9:4 ") == 4);
  CHECK(Count("// 9:4 write of 'b' [raw] (global): sm_90 sectors 4") == 1);
  CHECK(Count("// 9:4 write of 'c' [raw] (global): sm_90 sectors 8") == 1);
  CHECK(Count("// 9:4 read of 'a' [raw] (global): sm_90 sectors 4") == 2);
}

TEST_CASE("what CUDA cannot run is a located error") {
  DiagnosticEngine D;
  ir::Program Prog = dsl::parseProgram("machine dmm(w: 32, l: 1)\nkernel k(a: shared f32[4096]) threads 4096 {\n"
                                       "  a[tid] = a[tid] + 1\n  sync\n}\n",
                                       "k.bw", D);
  REQUIRE(!D.hasErrors());
  codegen::CodegenOptions O;
  try {
    compileProgram(Prog, O);
    FAIL("expected an error");
  } catch (const UserError &E) {
    CHECK(E.diagnostic().Loc.File == "k.bw");
    CHECK(E.diagnostic().Message.find("1024") != std::string::npos);
  }
  ir::Program Vec = dsl::parseProgram("kernel k(a: global f32x4[64]) threads 64 {\n  a[tid] = a[tid] + a[tid]\n}\n",
                                      "v.bw", D);
  REQUIRE(!D.hasErrors());
  CHECK_THROWS_AS(compileProgram(Vec, O), UserError);
  CHECK(codegen::cppIdentifier("transpose-tiled.v2") == "transpose_tiled_v2");
  CHECK(codegen::cppIdentifier("2d") == "m_2d");
}

namespace {

/// Runs one generated pass on the CPU exactly as the emitted kernel does:
/// per block, (1) buf[j] = src[addr(j)], (2)-(3) v[j] = buf[s[j]], then
/// buf[d[j]] = v[j], (4) dst[addr(j)] = buf[j]; in place when Src == Dst.
void runPass(const HmmShape &Sh, int Pass, const std::uint16_t *S, const std::uint16_t *D,
             const std::vector<std::uint32_t> &Src, std::vector<std::uint32_t> &Dst) {
  const bool Strip = Pass == 1;
  const std::uint32_t Words = Strip ? Sh.Rows * Sh.StripCols : Sh.Cols;
  const std::uint32_t Blocks = Strip ? Sh.Cols / Sh.StripCols : Sh.Rows;
  std::vector<std::uint32_t> Buf(Words), V(Words);
  for (std::uint32_t B = 0; B < Blocks; ++B) {
    auto Addr = [&](std::uint32_t J) -> std::uint64_t {
      return Strip ? std::uint64_t(J / Sh.StripCols) * Sh.Cols + std::uint64_t(B) * Sh.StripCols + J % Sh.StripCols
                   : std::uint64_t(B) * Sh.Cols + J;
    };
    for (std::uint32_t J = 0; J < Words; ++J)
      Buf[J] = Src[Addr(J)];
    for (std::uint32_t J = 0; J < Words; ++J)
      V[J] = Buf[S[std::uint64_t(B) * Words + J]];
    for (std::uint32_t J = 0; J < Words; ++J)
      Buf[D[std::uint64_t(B) * Words + J]] = V[J];
    for (std::uint32_t J = 0; J < Words; ++J)
      Dst[Addr(J)] = Buf[J];
  }
}

} // namespace

TEST_CASE("schedule colored on global copies: the side file's planes run as three passes") {
  InSourceDir Here;
  const std::string Sample = "samples/offline_permutation_scheduled.bw";
  // Every table in the side file, as for the default n = 2^20.
  const auto R = compileSample(Sample, true, {{"N", 4096}}, 0);
  REQUIRE(!R.SideFile.empty());
  const std::vector<unsigned char> SideBytes = R.SideFile.bytes();
  CHECK(SideBytes.size() == R.SideFile.size());
  DiagnosticEngine D;
  ir::Program Prog = dsl::parseFile(Sample, D, {{"N", 4096}});
  REQUIRE(!D.hasErrors());
  const ir::Program Written = Prog;
  auto [Rewritten, Reports] = applyColoredSchedules(Prog);
  Prog = std::move(Rewritten);
  REQUIRE(Reports.size() == 3);
  PermutationTables Perms(Written);
  // P of each kernel: b[P(t)] = a[t] for permute_random (f32) and
  // permute_random_f64; b[t] = a[Q(t)], so b[Q^-1(i)] = a[i], for
  // permute_bitrev.
  const std::map<std::string, const Permutation *> Ps = {{"permute_random", &Perms.get("P", false)},
                                                         {"permute_bitrev", &Perms.get("Q", true)},
                                                         {"permute_random_f64", &Perms.get("P", false)}};
  for (const ColoredScheduleReport &C : Reports) {
    CAPTURE(C.Kernel);
    REQUIRE(C.Hmm);
    const HmmSchedule &Sched = *C.Hmm->Schedule;
    const int Bytes = C.Kernel == "permute_random_f64" ? 8 : 4;
    CHECK(C.Hmm->ElemBytes == Bytes);
    CHECK(C.Hmm->Shape == chooseSm90Shape(4096, Bytes));
    // The analysis of the three kernels the copy became, like any kernel's,
    // gives hmmPassCosts's figures (the seed's model, warp by warp from the
    // schedule): shared congestion, data requests, sectors, lines, groups,
    // and the sectors of the s and d loads.
    const std::vector<HmmPassCost> Costs = hmmPassCosts(Sched, Bytes);
    REQUIRE(C.Hmm->PassKernels.size() == Costs.size());
    const ir::Launch *L = Prog.findLaunch(C.Kernel);
    REQUIRE(L);
    CHECK(L->Kernels == C.Hmm->PassKernels);
    CHECK(Prog.findKernel(C.Kernel) == nullptr);
    for (std::size_t Pass = 0; Pass < Costs.size(); ++Pass) {
      const ir::Kernel *K = Prog.findKernel(C.Hmm->PassKernels[Pass]);
      REQUIRE(K);
      const KernelReport Rep = analyzeKernel(Prog, *K);
      HmmPassCost Got;
      Got.Kind = Costs[Pass].Kind;
      Got.Blocks = static_cast<std::uint32_t>(K->Geo.GridDim[0]);
      Got.BlockWords = Costs[Pass].BlockWords;
      for (const AccessSiteReport &S : Rep.Sites) {
        CAPTURE(S.Array);
        REQUIRE_FALSE(S.DataDependent);
        if (S.Space == ir::MemSpace::Shared) {
          Got.MaxSharedCongestion = std::max(Got.MaxSharedCongestion, S.Congestion.Max);
        } else if (Prog.findArray(*K, S.Array)->Holds) {
          Got.IndexSectors += static_cast<std::uint64_t>(S.Sectors.Sum);
        } else {
          Got.GlobalRequests += static_cast<std::uint64_t>(S.Sectors.Count);
          Got.Sectors += static_cast<std::uint64_t>(S.Sectors.Sum);
          Got.MaxSectorsPerRequest = std::max(Got.MaxSectorsPerRequest, S.Sectors.Max);
          Got.MaxLinesPerRequest = std::max(Got.MaxLinesPerRequest, S.Lines.Max);
          Got.MaxUmmGroups = std::max(Got.MaxUmmGroups, S.Groups.Max);
        }
      }
      CHECK(Got == Costs[Pass]);
      CHECK(Got.MaxSharedCongestion == 1);
      CHECK(Got.MaxSectorsPerRequest == Bytes);
    }
    // The planes are in the side file, each its own table, readable as the
    // host API reads them.
    const std::uint64_t N = Sched.size();
    std::vector<std::uint16_t> Loaded(6 * N);
    for (int Plane = 0; Plane < 6; ++Plane) {
      const std::span<const std::uint16_t> Values = Sched.plane(Plane);
      std::vector<unsigned char> Bytes;
      for (std::uint16_t V : Values)
        Bytes.push_back(static_cast<unsigned char>(V)), Bytes.push_back(static_cast<unsigned char>(V >> 8));
      const auto At = std::search(SideBytes.begin() + 8, SideBytes.end(), Bytes.begin(), Bytes.end());
      REQUIRE(At != SideBytes.end());
      const std::uint64_t Offset = static_cast<std::uint64_t>(At - SideBytes.begin()) - 8;
      const fs::path Side = fs::path(BANKWISE_TEST_TMPDIR) / "scheduled.tables.bin";
      std::ofstream(Side, std::ios::binary).write(reinterpret_cast<const char *>(SideBytes.data()),
                                                  static_cast<std::streamsize>(SideBytes.size()));
      const std::uint64_t Hash = bankwise::tableHash(Bytes.data(), Bytes.size());
      CHECK(R.Source.find(fmt::format("bankwise::readTable<std::uint16_t>(bw_table_file, {}ULL, {}, 0x{:016x}ULL",
                                      Offset, Values.size(), Hash)) != std::string::npos);
      std::vector<std::uint16_t> One;
      REQUIRE(bankwise::readTable<std::uint16_t>(Side.string().c_str(), Offset, Values.size(), Hash, One));
      std::copy(One.begin(), One.end(), Loaded.begin() + static_cast<std::ptrdiff_t>(Plane * N));
    }
    // The three passes from the loaded planes: a -> b, b -> b, b -> b.
    std::vector<std::uint32_t> A(N), B(N, 0xFFFFFFFFu);
    for (std::uint64_t I = 0; I < N; ++I)
      A[I] = static_cast<std::uint32_t>(I * 2654435761u + 17);
    for (int Pass = 0; Pass < 3; ++Pass)
      runPass(C.Hmm->Shape, Pass, Loaded.data() + 2 * Pass * N, Loaded.data() + (2 * Pass + 1) * N,
              Pass == 0 ? A : B, B);
    const Permutation &P = *Ps.at(C.Kernel);
    for (std::uint64_t I = 0; I < N; ++I)
      REQUIRE(B[P(I)] == A[I]);
    // And the schedule's own reference agrees.
    CHECK(applyHmmSchedule(Sched, A) == B);
  }
}

TEST_CASE("schedule colored on global copies: a site comment above every access, and the report lists it") {
  InSourceDir Here;
  const SampleBuild Built = buildSample("samples/offline_permutation_scheduled.bw", true, {{"N", 4096}});
  const codegen::CompileResult &R = Built.Code;
  const nlohmann::json J = nlohmann::json::parse(Built.ReportJson);
  std::istringstream In(R.Source);
  std::vector<std::string> Lines;
  for (std::string L; std::getline(In, L);)
    Lines.push_back(L);
  const std::regex Kernel(R"(__global__ void __launch_bounds__\(\d+\) (\w+_pass[012])\()");
  const std::regex Access(R"((\ba\[|\bb\[|\bbuf\[|\b[sd][012]\[))");
  const std::regex Comment(R"(^\s*// (\d+):(\d+) (read|write) of '([A-Za-z_0-9]+)' \[raw\] \((shared|global)\): sm_90 .*)");
  std::string Current;
  int Checked = 0;
  std::set<std::string> PassKernels;
  for (std::size_t I = 0; I < Lines.size(); ++I) {
    std::smatch M;
    if (std::regex_search(Lines[I], M, Kernel)) {
      Current = M[1];
      PassKernels.insert(Current);
      continue;
    }
    if (Lines[I] == "}")
      Current.clear();
    // Declarations name the buffer but access nothing.
    if (Current.empty() || Lines[I].find("//") != std::string::npos || Lines[I].find("__shared__") != std::string::npos ||
        !std::regex_search(Lines[I], Access))
      continue;
    CAPTURE(Current);
    CAPTURE(Lines[I]);
    // One marker per access of the statement, in the lines right above it.
    const auto Accesses = std::distance(std::sregex_iterator(Lines[I].begin(), Lines[I].end(), Access),
                                        std::sregex_iterator());
    REQUIRE(I >= static_cast<std::size_t>(Accesses));
    for (std::size_t Above = I - static_cast<std::size_t>(Accesses); Above < I; ++Above) {
      std::smatch C;
      REQUIRE(std::regex_match(Lines[Above], C, Comment));
      const std::string Loc = fmt::format("samples/offline_permutation_scheduled.bw:{}:{}", C[1].str(), C[2].str());
      bool Found = false;
      for (const auto &K : J["kernels"])
        if (K["kernel"] == Current)
          for (const auto &S : K["sites"])
            Found = Found || (S["location"] == Loc && S["array"] == C[4].str() && S["access"] == C[3].str() &&
                              S["space"] == C[5].str());
      CHECK(Found);
      ++Checked;
    }
  }
  // Three kernels, three passes each, eight sites per pass.
  CHECK(PassKernels.size() == 9);
  CHECK(Checked == 9 * 8);
  for (const auto &K : J["kernels"]) {
    REQUIRE(PassKernels.count(K["kernel"].get<std::string>()));
    CHECK(K["sites"].size() == 8);
    CHECK(K["program_kernel"].get<std::string>() + "_pass" == K["kernel"].get<std::string>().substr(0, K["kernel"].get<std::string>().size() - 1));
    for (const auto &S : K["sites"]) {
      CHECK(S.contains("warp_executions"));
      CHECK(S.contains("data_dependent"));
      CHECK(S.contains("added_by_codegen"));
      CHECK((S.contains("sm90_wavefronts") || S.contains("sm90_sectors")));
    }
  }
}

TEST_CASE("runtime params: representative sizes, the smallest from 64 (else from 1) that meet each where") {
  InSourceDir Here;
  DiagnosticEngine Diags;
  const ir::Program T = dsl::parseFile("samples/transpose_any_shape.bw", Diags, {});
  REQUIRE_FALSE(Diags.hasErrors());
  CHECK(ir::representativeSizes(T, {}) == ir::Bindings{{"R", 64}, {"C", 64}});
  CHECK(ir::representativeSizes(T, {{"C", 1000}}) == ir::Bindings{{"R", 64}, {"C", 1000}});
  CHECK_THROWS_AS(ir::representativeSizes(T, {{"Q", 3}}), UserError);
  const ir::Program S = dsl::parseFile("tests/codegen/inputs/runtime_sizes.bw", Diags, {});
  REQUIRE_FALSE(Diags.hasErrors());
  CHECK(ir::representativeSizes(S, {}) == ir::Bindings{{"N", 64}, {"M", 64}});
  CHECK_THROWS_AS(ir::representativeSizes(S, {{"N", 66}}), UserError); // breaks N % 4 == 0
  CHECK_THROWS_AS(ir::representativeSizes(S, {{"Mid", 5}}), UserError); // computed, not a size
  auto Parse = [&](const std::string &Text) {
    const fs::path P = fs::path(BANKWISE_TEST_TMPDIR) / "representative.bw";
    std::ofstream(P) << Text;
    DiagnosticEngine D;
    ir::Program Prog = dsl::parseFile(P.string(), D, {});
    REQUIRE_FALSE(D.hasErrors());
    return Prog;
  };
  const std::string Kernel = "kernel k(a: global f32[N]) grid ((N + 31) / 32) block (32) { if tid < N { a[tid] = 0 } }\n";
  CHECK(ir::representativeSizes(Parse("param N where N % 256 == 0 && N >= 256\n" + Kernel), {}) ==
        ir::Bindings{{"N", 256}});
  // No value from 64 up: the smallest from 1 up (an exponent's bound).
  CHECK(ir::representativeSizes(Parse("param N where N < 10 && N > 3\n" + Kernel), {}) ==
        ir::Bindings{{"N", 4}});
  CHECK_THROWS_AS(ir::representativeSizes(Parse("param N where N < 0\n" + Kernel), {}), UserError);
}

TEST_CASE("runtime params: one kernel for every size, sizes as arguments, predictions named with their sizes") {
  InSourceDir Here;
  const SampleBuild Built = buildSample("samples/transpose_any_shape.bw");
  const codegen::CompileResult &R = Built.Code;
  // The kernel takes the sizes; nothing bakes 64 in.
  CHECK(R.Source.find("transpose_f32(const float *in, float *out, long long R, long long C) {") != std::string::npos);
  CHECK(R.Source.find("constexpr Index R") == std::string::npos);
  CHECK(R.Source.find("in[r * C + c]") != std::string::npos);
  CHECK(R.Source.find("out[c * R + r]") != std::string::npos);
  CHECK(R.Header.find("cudaError_t launch_transpose_f32(const float *in, std::size_t in_count, float *out, "
                      "std::size_t out_count, long long R, long long C, cudaStream_t stream = 0);") != std::string::npos);
  CHECK(R.Header.find("inline constexpr long long R") == std::string::npos);
  // The launch computes the grid and checks the sizes before launching.
  CHECK(R.Source.find("const long long bw_grid_x = bankwise::floorDiv(R + 7 + 63, 64), bw_grid_y = bankwise::floorDiv(C + 63, 64), bw_grid_z = 1;") != std::string::npos);
  CHECK(R.Source.find("if (in_count != static_cast<std::size_t>(R * C) || out_count != static_cast<std::size_t>(C * R))") != std::string::npos);
  CHECK(R.Source.find("transpose_f32<<<bw_grid, dim3(32, 16, 1), 0, stream>>>(in, out, R, C);") != std::string::npos);
  // Predictions say at which sizes they hold.
  CHECK(R.Source.find("// Predicted at R = 64, C = 64 (representative sizes") != std::string::npos);
  const nlohmann::json J = nlohmann::json::parse(Built.ReportJson);
  CHECK(J["predicted_at"] == nlohmann::json{{"C", 64}, {"R", 64}});
  // The harness takes the sizes from argv and reports them.
  CHECK(R.Source.find("else if (bw_size_argument(A, \"R\", R))") != std::string::npos);
  CHECK(R.Source.find("\\\"sizes\\\":{\\\"R\\\":%lld,\\\"C\\\":%lld}") != std::string::npos);
  // -D binds a runtime param for good: the constant code of before.
  const codegen::CompileResult D = compileSample("samples/transpose_any_shape.bw", true, {{"R", 250}, {"C", 170}});
  CHECK(D.Source.find("constexpr Index R = 250; // param") != std::string::npos);
  CHECK(D.Source.find("transpose_f32<<<dim3(5, 3, 1), dim3(32, 16, 1), 0, stream>>>(in, out);") != std::string::npos);
  CHECK(D.Source.find("Predicted at") == std::string::npos);
}

TEST_CASE("runtime params: the launch checks each where, derived params are computed where they are used") {
  InSourceDir Here;
  const codegen::CompileResult R = compileSample("tests/codegen/inputs/runtime_sizes.bw");
  CHECK(R.Source.find("if (!((N % 4) == 0) || N < 1)\n    return cudaErrorInvalidValue;") != std::string::npos);
  CHECK(R.Source.find("  [[maybe_unused]] const long long Mid = M - 2; // param (runtime)\n"
                      "  if (!((N % 4) == 0) || !(Mid >= 1) || M < 1 || N < 1 || Mid < 1)") != std::string::npos);
  CHECK(R.Source.find("  [[maybe_unused]] const Index Mid = M - 2; // param (runtime)") != std::string::npos); // in the kernel
  // A runtime grid: tid from gridDim.
  CHECK(R.Source.find("gridDim.x") != std::string::npos);
}

// compile --torch (docs/torch.md): the extension's ops for the transposes
// (four dtypes, sizes taken as dims) and for the bit reversal (M from
// log2 of a dim, also through Mid = M - 10), byte for byte, and its Python
// files.
TEST_CASE("the PyTorch extensions of transpose_any_shape and bit_reversal equal their golden files") {
  InSourceDir Here;
  const fs::path Dir = BANKWISE_GOLDEN_DIR;
  for (const std::string Stem : {"transpose_any_shape", "bit_reversal"}) {
    CAPTURE(Stem);
    DiagnosticEngine Diags;
    ir::Program Prog = dsl::parseFile("samples/" + Stem + ".bw", Diags, {});
    REQUIRE(!Diags.hasErrors());
    const PipelineResult P = runPipeline(std::move(Prog));
    codegen::CodegenOptions O;
    O.SourceName = "samples/" + Stem + ".bw";
    O.Namespace = O.TorchModule = Stem;
    O.HeaderInclude = Stem + ".h";
    const codegen::CompileResult R = codegen::compileToCuda(P, O);
    REQUIRE(R.Torch);
    CHECK(R.Torch->Skipped.empty());
    checkGolden(Dir / (Stem + ".torch.cu"), goldenParts(R.Torch->Bindings).Kernels);
    if (Stem == "transpose_any_shape") {
      CHECK(R.Torch->Ops == std::vector<std::string>{"transpose_f32", "transpose_f64", "transpose_f16", "transpose_i8"});
      checkGolden(Dir / (Stem + ".setup.py"), R.Torch->SetupPy);
      checkGolden(Dir / (Stem + ".loader.py"), R.Torch->LoaderPy);
    } else {
      CHECK(R.Torch->Ops == std::vector<std::string>{"bitrev_naive", "bitrev_tiled"});
    }
    // The module the ops call is the one compile writes, without a harness.
    CHECK(R.Source.find(codegen::HarnessMarker) == std::string::npos);
  }
}
