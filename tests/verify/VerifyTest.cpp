// gpu-verify's per-site comparison (bench/verify/): the Nsight Compute
// source-page parser, the .cu site markers, the matcher and the report, on
// the archived inputs of the last H200 run (bench/results/ncu-source.tgz,
// unpacked by CMake; its README.md says what each file holds).

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "NcuSource.h"
#include "Report.h"
#include "SiteMatch.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace bankwise::verify;

namespace {

const std::string Fixtures = BANKWISE_VERIFY_FIXTURES;

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  REQUIRE_MESSAGE(In.good(), "cannot read " << Path);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::string fixture(const std::string &Name) { return readFile(Fixtures + "/" + Name); }

void writeFile(const std::string &Path, const std::string &Text) { std::ofstream(Path, std::ios::binary) << Text; }

/// A fresh directory holding copies of the fixtures of \p Samples.
std::string copyFixtures(const std::string &Name, const std::vector<std::string> &Samples) {
  const std::string Dir = std::string(BANKWISE_TEST_TMPDIR) + "/" + Name;
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  for (const auto &S : Samples)
    for (const char *Ext : {".report.json", ".cu", ".cuda-sass.csv", ".run.json"})
      if (std::filesystem::exists(Fixtures + "/" + S + Ext))
        std::filesystem::copy_file(Fixtures + "/" + S + Ext, Dir + "/" + S + Ext);
  return Dir;
}

std::vector<KernelResult> verifyFixture(const std::string &Sample) { return verifySample(Fixtures, Sample); }

const KernelResult &kernel(const std::vector<KernelResult> &Rs, const std::string &Name) {
  auto It = std::find_if(Rs.begin(), Rs.end(), [&](const KernelResult &R) { return R.Name == Name; });
  REQUIRE_MESSAGE(It != Rs.end(), "no kernel " << Name);
  return *It;
}

/// The group holding the site with key \p Key (e.g. "14:5") and access.
const GroupResult &groupOf(const KernelResult &K, const std::string &Key, const std::string &Access) {
  for (const auto &G : K.Groups)
    for (const auto &S : G.Sites)
      if (S.Key == Key && S.Access == Access)
        return G;
  FAIL("no group with site " << Key << " " << Access);
  return K.Groups.front();
}

/// Replaces the first occurrence of \p From, which must exist.
std::string replaceOnce(std::string Text, const std::string &From, const std::string &To) {
  const auto P = Text.find(From);
  REQUIRE_MESSAGE(P != std::string::npos, "fixture text not found: " << From);
  return Text.replace(P, From.size(), To);
}

} // namespace

// --- NcuSource ------------------------------------------------------------

TEST_CASE("ncu source page: one kernel, sums per CUDA line, space and operation") {
  const NcuSource N = parseNcuSource(fixture("transpose_tiled.cuda-sass.csv"));
  REQUIRE(N.Functions.size() == 1);
  const FunctionSource &F = N.Functions[0];
  CHECK(F.Name == "transpose");
  CHECK(F.Signature == "transpose_tiled_small::transpose(const float *, float *)");
  CHECK(F.Memory.size() == 16); // nvcc unrolled the 4-step loops: 4 x LDG, STS, LDS, STG
  CHECK(F.LineText.at(433).rfind("tile[tile_layout.offset(", 0) == 0);
  const auto Groups = groupByLine(F);
  REQUIRE(Groups.size() == 4);
  const LineGroup &Ld = Groups[0];
  CHECK(Ld.Line == 433);
  CHECK(Ld.AddressSpace == Space::Shared);
  CHECK(Ld.Operation == Op::Store);
  CHECK(Ld.Instructions == 4);
  CHECK(Ld.Executed == 32768);
  CHECK(Ld.SharedWavefronts == 32768);
  const LineGroup &Gl = Groups[1];
  CHECK(Gl.AddressSpace == Space::Global);
  CHECK(Gl.Operation == Op::Load);
  CHECK(Gl.GlobalSectors == 131072);
  CHECK(Gl.Executed == 32768);
  CHECK(N.find("transpose") == &F);
  CHECK(N.find("nope") == nullptr);
}

TEST_CASE("ncu source page: repeated listings of one instruction are counted once") {
  // ncu 2025.3 lists every SASS instruction twice in files with several kernels.
  const NcuSource N = parseNcuSource(fixture("bit_reversal.cuda-sass.csv"));
  REQUIRE(N.Functions.size() == 2);
  const FunctionSource *Naive = N.find("bitrev_naive");
  REQUIRE(Naive != nullptr);
  CHECK(Naive->DuplicateRows > 0);
  REQUIRE(Naive->Memory.size() == 2);
  double Executed = 0;
  for (const auto &M : Naive->Memory)
    Executed += M.Executed;
  CHECK(Executed == 1024); // 512 LDG + 512 STG, not twice that
}

TEST_CASE("ncu source page: several kernels and section headers with different columns") {
  const NcuSource A = parseNcuSource(fixture("transpose_any_shape.cuda-sass.csv"));
  REQUIRE(A.Functions.size() == 4);
  CHECK(A.Functions[0].Name == "transpose_f32");
  CHECK(A.Functions[3].Name == "transpose_i8");
  // A kernel without shared accesses has no shared columns; one without memory instructions none at all.
  const NcuSource R = parseNcuSource(fixture("transpose_umm_rotating.cuda-sass.csv"));
  REQUIRE(R.Functions.size() == 1);
  CHECK(std::count_if(R.Functions[0].Memory.begin(), R.Functions[0].Memory.end(),
                      [](const MemoryInstruction &M) { return M.AddressSpace == Space::Local; }) > 0);
  // ncu's header for a kernel with no memory instruction (the last run had none; this is its shape).
  const NcuSource C = parseNcuSource("\"File Path\",\"/x.cu\"\n"
                                     "\"Function Name\",\"ns::k(int)\"\n"
                                     "\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\"\n"
                                     "\"7\",\"int x = 1;\",\"-\",\"-\",\"32\"\n"
                                     "\"\",\"\",\"0x10\",\"MOV R1, 0x1\",\"32\"\n");
  REQUIRE(C.Functions.size() == 1);
  CHECK(C.Functions[0].Name == "k");
  CHECK(C.Functions[0].Memory.empty());
}

TEST_CASE("ncu source page: an instruction listed under a helper's line and the caller's keeps both") {
  const std::string Csv = "\"File Path\",\"/x.cu\"\n"
                          "\"Function Name\",\"ns::k(float *)\"\n"
                          "\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\",\"Address "
                          "Space\",\"Access Operation\",\"L1 Wavefronts Shared\",\"L2 Theoretical Sectors Global\"\n"
                          "\"72\",\"return table[i];\",\"-\",\"-\",\"4\",\"-\",\"-\",\"0\",\"0\"\n"
                          "\"\",\"\",\"0x10\",\"LDG.E R1, [R2]\",\"4\",\"Global\",\"Load\",\"0\",\"16\"\n"
                          "\"300\",\"b[t] = a[f(t)];\",\"-\",\"-\",\"4\",\"-\",\"-\",\"0\",\"0\"\n"
                          "\"\",\"\",\"0x10\",\"LDG.E R1, [R2]\",\"4\",\"Global\",\"Load\",\"0\",\"16\"\n";
  const NcuSource N = parseNcuSource(Csv);
  REQUIRE(N.Functions.size() == 1);
  REQUIRE(N.Functions[0].Memory.size() == 1);
  CHECK(N.Functions[0].Memory[0].Lines == std::vector<int>{72, 300});
  CHECK(N.Functions[0].Memory[0].GlobalSectors == 16);
}

TEST_CASE("ncu source page: an atomic listed under CUDA's header is placed on the kernel line around it") {
  // ncu 2025.3 lists an atomicAdd's ATOMS in a second section of the kernel,
  // under sm_20_atomic_functions.hpp:112; its neighbours by address are the
  // call's own instructions in the .cu section.
  const std::string Head = "\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\",\"Address "
                           "Space\",\"Access Operation\",\"L1 Wavefronts Shared\",\"L2 Theoretical Sectors Global\"\n";
  const std::string Cu = "\"File Path\",\"/tmp/h.cu\"\n\"Function Name\",\"hist(const unsigned int *, unsigned int *)\"\n" +
                         Head +
                         "\"20\",\"unsigned k = keys[i];\",\"-\",\"-\",\"8\",\"-\",\"-\",\"0\",\"0\"\n"
                         "\"\",\"\",\"0x100\",\"LDG.E R1, [R2]\",\"8\",\"Global\",\"Load\",\"0\",\"32\"\n"
                         "\"21\",\"atomicAdd(&h[k % 64], 1u);\",\"-\",\"-\",\"8\",\"-\",\"-\",\"0\",\"0\"\n"
                         "\"\",\"\",\"0x110\",\"LOP3.LUT R3, R1, 0x3f\",\"8\",\"-\",\"-\",\"0\",\"0\"\n"
                         "\"22\",\"__syncthreads();\",\"-\",\"-\",\"8\",\"-\",\"-\",\"0\",\"0\"\n"
                         "\"\",\"\",\"0x130\",\"BAR.SYNC.DEFER_BLOCKING 0x0\",\"8\",\"-\",\"-\",\"0\",\"0\"\n";
  const std::string Hpp = "\"File Path\",\"/usr/local/cuda/include/sm_20_atomic_functions.hpp\"\n"
                          "\"Function Name\",\"hist(const unsigned int *, unsigned int *)\"\n" +
                          Head +
                          "\"112\",\"return __uAtomicAdd(address, val);\",\"-\",\"-\",\"8\",\"-\",\"-\",\"64\",\"0\"\n"
                          "\"\",\"\",\"0x120\",\"ATOMS.POPC.INC.32 RZ, [R3+URZ]\",\"8\",\"Shared\",\"Atomic\",\"64\",\"0\"\n";
  for (const std::string &Csv : {Cu + Hpp, Hpp + Cu}) {
    const NcuSource S = parseNcuSource(Csv);
    REQUIRE(S.Functions.size() == 1);
    const FunctionSource &F = S.Functions[0];
    CHECK(F.FilePath == "/tmp/h.cu");
    CHECK(F.MergedFiles == std::vector<std::string>{"sm_20_atomic_functions.hpp"});
    REQUIRE(F.Memory.size() == 2);
    const auto Groups = groupByLine(F);
    REQUIRE(Groups.size() == 2);
    CHECK(Groups[1].Line == 21); // after 0x110 (line 21), before 0x130 (line 22)
    CHECK(Groups[1].AddressSpace == Space::Shared);
    CHECK(Groups[1].Operation == Op::Atomic);
    CHECK(Groups[1].SharedWavefronts == 64);
    CHECK(Groups[1].Sass.front() == "ATOMS.POPC.INC.32 RZ, [R3+URZ] [sm_20_atomic_functions.hpp:112]");
  }
  // A REDG's "Access Operation" is "-" in ncu 2025.3: the mnemonic says atomic.
  const NcuSource Red = parseNcuSource(
      "\"File Path\",\"/tmp/h.cu\"\n\"Function Name\",\"k(unsigned int *)\"\n" + Head +
      "\"30\",\"atomicAdd(&bins[tx], 1u);\",\"-\",\"-\",\"8\",\"-\",\"-\",\"0\",\"0\"\n"
      "\"\",\"\",\"0x200\",\"@P0 REDG.E.ADD.STRONG.GPU desc[UR6][R4.64], R3\",\"8\",\"Global\",\"-\",\"0\",\"32\"\n");
  REQUIRE(Red.Functions.at(0).Memory.size() == 1);
  CHECK(Red.Functions[0].Memory[0].Operation == Op::Atomic);
  // The trimmed fixture keeps the other instructions' addresses, so the placement survives trimming.
  const NcuSource T = parseNcuSource(trimNcuSource(Cu + Hpp));
  REQUIRE(T.Functions.size() == 1);
  CHECK(groupByLine(T.Functions[0])[1].Line == 21);
  // Two sections of one function and one .cu file (profiled twice) stay apart.
  CHECK(parseNcuSource(Cu + Cu).Functions.size() == 2);
}

TEST_CASE("ncu source page: quotes ncu leaves unescaped in a CUDA source line") {
  // cooperative_groups' headers hold `asm ("mov.u32 %0, %%laneid;" : "=r"(laneid));`
  // and ncu 2025 writes the line as it is, inner quotes and commas included.
  const std::string Head = "\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\",\"Address "
                           "Space\",\"Access Operation\",\"L1 Wavefronts Shared\",\"L2 Theoretical Sectors Global\"\n";
  const NcuSource S = parseNcuSource(
      "\"File Path\",\"/tmp/cg.cu\"\n\"Function Name\",\"k(float *)\"\n" + Head +
      "\"545\",\"asm (\"mov.u32 %0, %%laneid;\" : \"=r\"(laneid));\",\"-\",\"-\",\"32\",\"-\",\"-\",\"0\",\"0\"\n"
      "\"\",\"\",\"0x100\",\"S2R R7, SR_LANEID\",\"32\",\"-\",\"-\",\"0\",\"0\"\n"
      "\"546\",\"p[i] = 1.0f;\",\"-\",\"-\",\"32\",\"-\",\"-\",\"0\",\"0\"\n"
      "\"\",\"\",\"0x110\",\"STG.E [R2.64], R5\",\"32\",\"Global\",\"Store\",\"0\",\"128\"\n");
  REQUIRE(S.Functions.size() == 1);
  CHECK(S.Functions[0].LineText.at(545) == "asm (\"mov.u32 %0, %%laneid;\" : \"=r\"(laneid));");
  REQUIRE(S.Functions[0].Memory.size() == 1);
  CHECK(groupByLine(S.Functions[0]).at(0).Line == 546);
}

TEST_CASE("ncu source page: malformed input is a located error, not a crash") {
  const std::string Good = fixture("transpose_tiled.cuda-sass.csv");
  auto Fails = [](const std::string &Text, const std::string &Needle) {
    try {
      (void)parseNcuSource(Text);
      FAIL("no error for input containing: " << Needle);
    } catch (const NcuSourceError &E) {
      CHECK_MESSAGE(std::string(E.what()).find(Needle) != std::string::npos, E.what());
    }
  };
  SUBCASE("unterminated quote") { Fails(replaceOnce(Good, "[R2.64]\"", "[R2.64]"), "line 11: unterminated"); }
  SUBCASE("a field too many") { Fails(replaceOnce(Good, "\"Load\",", "\"Load\",\"extra\","), "line 11: 11 fields"); }
  SUBCASE("a counter that is not a number") {
    Fails(replaceOnce(Good, "\"Global\",\"Load\",\"8192\",\"0\",\"32768\"",
                      "\"Global\",\"Load\",\"8192\",\"0\",\"lots\""),
          "\"L2 Theoretical Sectors Global\" holds \"lots\"");
  }
  SUBCASE("data before any header") { Fails("\"1\",\"x\"\n", "line 1: a data row before"); }
  SUBCASE("a header without the executed-instruction column") {
    Fails(replaceOnce(Good, "\"Instructions Executed\"", "\"Executed Instructions\""),
          "lacks \"Instructions Executed\"");
  }
  SUBCASE("a shared instruction without the wavefront column") {
    std::string T = replaceOnce(Good, ",\"L1 Wavefronts Shared\"", "");
    // Drop the wavefront field (the ninth) from every data row so the field counts agree.
    std::istringstream In(T);
    std::string Line, Out;
    while (std::getline(In, Line)) {
      if (Line.rfind("\"File", 0) != 0 && Line.rfind("\"Function", 0) != 0 && Line.rfind("\"Line No", 0) != 0) {
        auto F = splitCsvRecord(Line);
        F.erase(F.begin() + 8);
        Line.clear();
        for (std::size_t I = 0; I < F.size(); ++I)
          Line += (I ? ",\"" : "\"") + F[I] + "\"";
      }
      Out += Line + "\n";
    }
    Fails(Out, "no \"L1 Wavefronts Shared\" column");
  }
  SUBCASE("a SASS row before any CUDA line") {
    Fails("\"File Path\",\"x\"\n\"Function Name\",\"k()\"\n\"Line No\",\"Source\",\"Address\",\"Source\","
          "\"Instructions Executed\"\n\"\",\"\",\"0x10\",\"NOP\",\"1\"\n",
          "line 4: a SASS row before any CUDA line");
  }
  SUBCASE("a line number that is not one") {
    Fails(replaceOnce(Good, "\"427\"", "\"4x7\""), "\"4x7\" is not a line number");
  }
  SUBCASE("a file cut off in the middle of a row") { Fails(Good.substr(0, Good.find("STS [R5]") + 3), "unterminated"); }
  SUBCASE("empty input: no functions") { CHECK(parseNcuSource("").Functions.empty()); }
}

TEST_CASE("short function names") {
  CHECK(shortFunctionName("transpose_tiled_small::transpose(const float *, float *)") == "transpose");
  CHECK(shortFunctionName("void bankwise::pass1<int, (int)3>(const int *)") == "pass1");
  CHECK(shortFunctionName("kernel") == "kernel");
}

// --- SiteMatch ------------------------------------------------------------

TEST_CASE("site markers: statements, their kernels and their lines") {
  const CuMarkers M = parseCuMarkers(fixture("transpose_tiled.cu"));
  CHECK(M.Kernels == std::vector<std::string>{"transpose"});
  REQUIRE(M.Statements.size() == 2);
  const Statement &S = M.Statements[0];
  CHECK(S.Kernel == "transpose");
  CHECK(S.FirstLine == 433);
  CHECK(S.LastLine == 433);
  REQUIRE(S.Markers.size() == 2);
  CHECK(S.Markers[0].BwLine == 14);
  CHECK(S.Markers[0].BwCol == 5);
  CHECK(S.Markers[0].Array == "tile");
  CHECK(S.Markers[0].Access == "write");
  CHECK(S.Markers[0].Space == "shared");
  CHECK(S.Markers[1].Space == "global");
  CHECK(M.Warnings.empty());
}

TEST_CASE("site markers: staging loops, multi-line statements and code outside kernels") {
  const std::string Cu = "// 1:1 read of 'x' [raw] (global): outside any kernel, ignored\n" // 1
                         "int x = a[0];\n"                                                  // 2
                         "__global__ void __launch_bounds__(32) k(const float *a_global) {\n" // 3
                         "  // Staging (added by codegen): 'a' is a shared parameter of the program; the block "
                         "copies it in from global memory.\n" // 4
                         "  for (Index bw_i = bw_t; bw_i < 16; bw_i += 16)\n" // 5
                         "    a[bw_i] = a_global[bw_i];\n"                    // 6
                         "  // 7:3 write of 'b' [raw] (shared): sm_90 wavefronts 1\n" // 7
                         "  // 7:9 read of 'a' [raw] (shared, kept in global memory by codegen): x\n" // 8
                         "  b[(i * 100 + bz)\n"                                                       // 9
                         "    * 3 + c] = a[i];\n"                                                     // 10
                         "  // Staging (added by codegen): 'b' goes back to global memory.\n"        // 11
                         "  for (Index bw_i = bw_t; bw_i < 16; bw_i += 16)\n"                        // 12
                         "    b_global[bw_i] = b[bw_i];\n"                                            // 13
                         "}\n";                                                                       // 14
  const CuMarkers M = parseCuMarkers(Cu);
  REQUIRE(M.Statements.size() == 3);
  CHECK(M.Statements[0].FirstLine == 6);
  CHECK(M.Statements[0].Markers[0].K == Marker::Kind::StagingIn);
  CHECK(M.Statements[1].FirstLine == 9);
  CHECK(M.Statements[1].LastLine == 10);
  CHECK(M.Statements[1].Markers[1].Space == "shared");
  CHECK(M.Statements[2].Markers[0].K == Marker::Kind::StagingOut);
  CHECK(M.Statements[2].FirstLine == 13);
  // trimCu keeps the kernels at their lines and blanks the rest.
  const std::string T = trimCu(Cu);
  CHECK(std::count(T.begin(), T.end(), '\n') == std::count(Cu.begin(), Cu.end(), '\n'));
  CHECK(T.find("outside any kernel") == std::string::npos);
  CHECK(parseCuMarkers(T).Statements.size() == 3);
}

TEST_CASE("matcher: every site of the tiled transpose matches") {
  const auto Rs = verifyFixture("transpose_tiled");
  REQUIRE(Rs.size() == 1);
  const KernelResult &K = Rs[0];
  CHECK(K.Profiled);
  CHECK(K.exactSites() == 4);
  CHECK(K.exactSitesMatched() == 4);
  const GroupResult &In = groupOf(K, "14:28", "read");
  CHECK(In.V == Verdict::Match);
  CHECK(In.MeasuredTotal == 131072);
  CHECK(In.PredictedTotal == 131072);
  CHECK(In.measuredPerRequest() == 4);
  CHECK(In.Sass.size() == 4);
}

TEST_CASE("matcher: a perturbed measurement is a mismatch") {
  const std::string Dir = copyFixtures("perturbed", {"transpose_tiled"});
  // One of the four STS of 14:5 now takes 2 wavefronts per instruction.
  const std::string Csv = readFile(Dir + "/transpose_tiled.cuda-sass.csv");
  writeFile(Dir + "/transpose_tiled.cuda-sass.csv",
            replaceOnce(Csv, "STS [R5], R0\",\"8192\",\"Shared\",\"Store\",\"0\",\"8192\"",
                        "STS [R5], R0\",\"8192\",\"Shared\",\"Store\",\"0\",\"16384\""));
  const auto Rs = verifySample(Dir, "transpose_tiled");
  const GroupResult &G = groupOf(Rs[0], "14:5", "write");
  CHECK(G.V == Verdict::Mismatch);
  CHECK(G.MeasuredTotal == 40960);
  CHECK(G.measuredPerRequest() == doctest::Approx(1.25));
  CHECK(groupOf(Rs[0], "18:47", "read").V == Verdict::Match);
  CHECK(Rs[0].exactSitesFailed() == 1);
  const ReportOutput R = buildReport({Dir, "g", "d", "t", {"transpose_tiled"}});
  CHECK_FALSE(R.ok());
  CHECK(R.ExactMatched == 3);
  CHECK(R.Markdown.find("Exact sites matched: 3 of 4") != std::string::npos);
  CHECK(R.Markdown.find("**no**") != std::string::npos);
}

TEST_CASE("matcher: instructions attributed outside the statement are not taken for removed loads") {
  const std::string Dir = copyFixtures("moved", {"transpose_tiled"});
  // Put the LDS and STG of line 439 (sites 18:47 and 18:5) under line 213, outside every kernel.
  const std::string Csv = readFile(Dir + "/transpose_tiled.cuda-sass.csv");
  writeFile(Dir + "/transpose_tiled.cuda-sass.csv", replaceOnce(Csv, "\"439\",", "\"213\","));
  const auto Rs = verifySample(Dir, "transpose_tiled");
  const GroupResult &Read = groupOf(Rs[0], "18:47", "read");
  CHECK(Read.V == Verdict::Mismatch);
  CHECK(Read.Note.find("outside every marked statement") != std::string::npos);
  CHECK(groupOf(Rs[0], "18:5", "write").V == Verdict::Mismatch);
  CHECK(std::count_if(Rs[0].Groups.begin(), Rs[0].Groups.end(),
                      [](const GroupResult &G) { return G.V == Verdict::Unpredicted && G.FirstLine == 213; }) == 2);
  CHECK(Rs[0].exactSitesFailed() == 2);
}

TEST_CASE("matcher: a perturbed prediction is a mismatch too") {
  const std::string Dir = copyFixtures("perturbed-prediction", {"transpose_tiled"});
  const std::string J = readFile(Dir + "/transpose_tiled.report.json");
  // The first site (14:5, tile) claims 2 wavefronts.
  writeFile(Dir + "/transpose_tiled.report.json",
            replaceOnce(J, "\"sm90_wavefronts\": {\n      \"max\": 1,\n      \"mean\": 1.0,\n      \"min\": 1",
                        "\"sm90_wavefronts\": {\n      \"max\": 2,\n      \"mean\": 2.0,\n      \"min\": 2"));
  const auto Rs = verifySample(Dir, "transpose_tiled");
  CHECK(groupOf(Rs[0], "14:5", "write").V == Verdict::Mismatch);
}

TEST_CASE("matcher: sites of one statement, space and operation compare as a group") {
  const auto Rs = verifyFixture("offline_permutation");
  const KernelResult &K = kernel(Rs, "permute_file");
  const GroupResult &G = groupOf(K, "25:12", "read"); // a[q[tid]]: the loads of a and q share the line
  CHECK(G.isGroup());
  CHECK(G.Sites.size() == 2);
  CHECK(G.V == Verdict::Match);
  CHECK(G.MeasuredTotal == 4573); // 4 sectors x 128 for q, 31.73 x 128 for a
  CHECK(G.PredictedTotal == doctest::Approx(4573));
  CHECK(&G == &groupOf(K, "25:14", "read"));
  CHECK(groupOf(K, "25:3", "write").V == Verdict::Match);
  CHECK(kernel(Rs, "permute_named").exactSitesMatched() == 2);
}

TEST_CASE("matcher: warps with every lane predicated off cost nothing, totals compare") {
  // The binary of transpose_any_shape run at R=33, C=65: 192 warps launched, 99 with a lane in range.
  const auto Rs = verifyFixture("transpose_any_shape@R=33,C=65");
  REQUIRE(Rs.size() == 4);
  for (const auto &K : Rs) {
    CHECK_MESSAGE(K.exactSitesMatched() == 4, K.Name);
    CHECK(K.exactSites() == 4);
  }
  const GroupResult &G = groupOf(kernel(Rs, "transpose_f32"), "23:48", "read");
  CHECK(G.MeasuredExecutions == 192);
  CHECK(G.PredictedExecutions == 99);
  CHECK(G.MeasuredTotal == 353);
  CHECK(G.V == Verdict::Match);
  CHECK(G.Note.find("predicated off") != std::string::npos);
}

TEST_CASE("matcher: a model with 4-lane warps compares per request") {
  const auto Rs = verifyFixture("permutation_example_w4");
  REQUIRE(Rs.size() == 4);
  for (const auto &K : Rs)
    CHECK_MESSAGE(K.exactSitesMatched() == K.exactSites(), K.Name);
  const GroupResult &G = groupOf(kernel(Rs, "copy"), "21:3", "write");
  CHECK(G.PredictedExecutions == 4);
  CHECK(G.MeasuredExecutions == 1);
  CHECK(G.V == Verdict::Match);
  // Staging sites (added by codegen) are located by their comments.
  const GroupResult &S = groupOf(kernel(Rs, "copy"), "staging-in", "read");
  CHECK(S.Sites[0].AddedByCodegen);
  CHECK(S.AddressSpace == Space::Global);
  CHECK(S.V == Verdict::Match);
}

TEST_CASE("matcher: loads nvcc removed, instructions no site predicts, local memory") {
  // A statement whose load nvcc removed: the tiled transpose with line 433's
  // LDGs (site 14:28) taken out. A store without instructions is no removal
  // (nvcc keeps stores): the same statement's STSs (site 14:5) stay.
  const std::string Dir = copyFixtures("removed", {"transpose_tiled"});
  std::istringstream Csv(readFile(Dir + "/transpose_tiled.cuda-sass.csv"));
  std::string Kept, Line;
  bool InLine433 = false;
  while (std::getline(Csv, Line)) {
    if (Line.rfind("\"433\",", 0) == 0)
      InLine433 = true;
    else if (Line.rfind("\"\",", 0) != 0)
      InLine433 = false;
    if (!(InLine433 && Line.find("LDG.E") != std::string::npos))
      Kept += Line + "\n";
  }
  writeFile(Dir + "/transpose_tiled.cuda-sass.csv", Kept);
  const auto C = verifySample(Dir, "transpose_tiled");
  REQUIRE(C.size() == 1);
  CHECK(groupOf(C[0], "14:28", "read").V == Verdict::RemovedByNvcc);
  CHECK(groupOf(C[0], "14:5", "write").V == Verdict::Match);
  CHECK(groupOf(C[0], "18:5", "write").V == Verdict::Match);
  CHECK(C[0].exactSitesFailed() == 0);

  const auto P = verifyFixture("permutation_colored");
  const KernelResult &K = P[0];
  CHECK(K.exactSitesMatched() == K.exactSites());
  CHECK(K.exactSites() == 8);
  const auto Tables = std::find_if(K.Groups.begin(), K.Groups.end(),
                                   [](const GroupResult &G) { return G.V == Verdict::Unpredicted; });
  REQUIRE(Tables != K.Groups.end());
  CHECK(Tables->AddressSpace == Space::Global);
  CHECK(Tables->MeasuredExecutions == 256); // the S and D table reads of the colored schedule

  const auto U = verifyFixture("transpose_umm_rotating");
  CHECK(U[0].exactSitesMatched() == 2);
  CHECK(std::count_if(U[0].Groups.begin(), U[0].Groups.end(), [](const GroupResult &G) {
          return G.V == Verdict::Unpredicted && G.AddressSpace == Space::Local;
        }) == 2);
}

TEST_CASE("matcher: several kernels of one sample, the same .bw sites in each, matched by function name") {
  // Three pass kernels lowered from one .bw statement carry the same site locations.
  std::string Cu, Csv, Report = "{\"kernels\": [";
  int Line = 1;
  for (int P = 1; P <= 3; ++P) {
    Cu += "__global__ void __launch_bounds__(256) pass" + std::to_string(P) + "(const float *a, float *b) {\n";
    Cu += "  // 9:3 write of 'b' [raw] (global): sm_90 sectors 4\n";
    Cu += "  // 9:10 read of 'a' [raw] (global): sm_90 sectors 4\n";
    Cu += "  b[t] = a[t];\n}\n";
    const int Stmt = Line + 3;
    Line += 5;
    const std::string Sectors = std::to_string(4 * P * 100); // pass P: P times the traffic
    Csv += "\"File Path\",\"/x.cu\"\n\"Function Name\",\"s::pass" + std::to_string(P) +
           "(const float *, float *)\"\n"
           "\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\",\"Address Space\",\"Access "
           "Operation\",\"L2 Theoretical Sectors Global\"\n\"" +
           std::to_string(Stmt) + "\",\"b[t] = a[t];\",\"-\",\"-\",\"0\",\"-\",\"-\",\"0\"\n" +
           "\"\",\"\",\"0x10\",\"LDG.E\",\"100\",\"Global\",\"Load\",\"" + Sectors + "\"\n" +
           "\"\",\"\",\"0x20\",\"STG.E\",\"100\",\"Global\",\"Store\",\"400\"\n";
    Report += std::string(P > 1 ? "," : "") + "{\"kernel\": \"pass" + std::to_string(P) +
              "\", \"program_kernel\": \"copy\", \"sites\": [" +
              "{\"location\": \"s.bw:9:3\", \"array\": \"b\", \"access\": \"write\", \"space\": \"global\", "
              "\"data_dependent\": false, \"added_by_codegen\": false, \"warp_executions\": 100, "
              "\"sm90_sectors\": {\"min\": 4, \"max\": 4, \"mean\": 4}}," +
              "{\"location\": \"s.bw:9:10\", \"array\": \"a\", \"access\": \"read\", \"space\": \"global\", "
              "\"data_dependent\": false, \"added_by_codegen\": false, \"warp_executions\": 100, "
              "\"sm90_sectors\": {\"min\": " + std::to_string(4 * P) + ", \"max\": " + std::to_string(4 * P) +
              ", \"mean\": " + std::to_string(4 * P) + "}}]}";
  }
  Report += "]}";
  const CuMarkers M = parseCuMarkers(Cu);
  CHECK(M.Kernels.size() == 3);
  const NcuSource N = parseNcuSource(Csv);
  const auto Ks = readReport(nlohmann::json::parse(Report));
  REQUIRE(Ks.size() == 3);
  for (const auto &K : Ks) {
    const KernelResult R = matchKernel(K, M, N.find(K.Name));
    CHECK_MESSAGE(R.exactSites() == 2, K.Name);
    CHECK_MESSAGE(R.exactSitesMatched() == 2, K.Name);
    CHECK(R.Groups.size() == 2);
  }
  // Pass 2's counters judged against pass 3's predictions must not match.
  const KernelResult Wrong = matchKernel(Ks[2], M, N.find("pass2"));
  CHECK(Wrong.exactSitesMatched() == 0); // no statement of pass3 is on pass2's lines

  // The harness reports the program kernel; every pass takes its verdict.
  const std::string Dir = std::string(BANKWISE_TEST_TMPDIR) + "/passes";
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  writeFile(Dir + "/s.cu", Cu);
  writeFile(Dir + "/s.cuda-sass.csv", Csv);
  writeFile(Dir + "/s.report.json", Report);
  writeFile(Dir + "/s.run.json", "{\"program\":\"s.bw\",\"correct\":true,\"kernels\":[{\"kernel\":\"copy\","
                                 "\"correct\":true,\"median_ms\":0.5,\"gbps\":100}]}\n");
  const ReportOutput R = buildReport({Dir, "g", "d", "t", {"s"}});
  CHECK(R.ok());
  CHECK(R.ExactMatched == 6);
  CHECK(R.Markdown.find("| s | pass2 (pass of copy) | yes | 0.5 | 100 | 2 / 2 |") != std::string::npos);
}

TEST_CASE("matcher: a site without a marker and a kernel without a profile fail") {
  const std::string Dir = copyFixtures("unlocated", {"transpose_tiled"});
  const std::string Cu = readFile(Dir + "/transpose_tiled.cu");
  writeFile(Dir + "/transpose_tiled.cu", replaceOnce(Cu, "// 18:47 read of 'tile'", "// read of 'tile'"));
  auto Rs = verifySample(Dir, "transpose_tiled");
  CHECK(groupOf(Rs[0], "18:47", "read").V == Verdict::NotFound);
  CHECK(Rs[0].exactSitesFailed() == 1);

  std::filesystem::remove(Dir + "/transpose_tiled.cuda-sass.csv");
  std::vector<std::string> Errors;
  Rs = verifySample(Dir, "transpose_tiled", &Errors);
  CHECK_FALSE(Rs[0].Profiled);
  CHECK(Rs[0].exactSitesFailed() == 4);
  CHECK(Errors.size() == 1);
}

// --- Report ---------------------------------------------------------------

TEST_CASE("report: every fixture sample, tables and JSON") {
  const std::vector<std::string> Samples = {"transpose_tiled",        "transpose_any_shape", "bit_reversal",
                                            "permutation_colored",    "permutation_example_w4",
                                            "offline_permutation",    "contiguous_access", "transpose_umm_rotating"};
  const ReportOutput R = buildReport({Fixtures, "NVIDIA H200", "580", "2026-11-22", Samples});
  CHECK(R.ok());
  CHECK(R.AllCorrect);
  CHECK(R.ExactSites == 85);
  CHECK(R.ExactMatched == 85);
  CHECK(R.Removed == 0);
  CHECK(R.Markdown.find("**Exact sites matched: 85 of 85**") != std::string::npos);
  CHECK(R.Markdown.find("| transpose_tiled | transpose | 14:5 | tile | write | shared | 1 wf/inst | 1 wf/inst | "
                        "32768 / 32768 | 32768 / 32768 | yes |") != std::string::npos);
  CHECK(R.Markdown.find("group of 2: 25:12, 25:14") != std::string::npos);
  CHECK(R.Json["exact_sites_matched"] == 85);
  CHECK(R.Json["samples"].size() == Samples.size());
  const auto &G = R.Json["samples"][0]["kernels"][0]["groups"][0];
  CHECK(G["match"] == "yes");
  CHECK(G["sites"][0]["location"] == "samples/transpose_tiled.bw:14:5");
}

TEST_CASE("report: an incorrect kernel fails the run") {
  const std::string Dir = copyFixtures("incorrect", {"transpose_tiled"});
  const std::string Run = readFile(Dir + "/transpose_tiled.run.json");
  writeFile(Dir + "/transpose_tiled.run.json", replaceOnce(Run, "\"kernel\":\"transpose\",\"correct\":true",
                                                           "\"kernel\":\"transpose\",\"correct\":false"));
  const ReportOutput R = buildReport({Dir, "g", "d", "t", {"transpose_tiled"}});
  CHECK_FALSE(R.AllCorrect);
  CHECK_FALSE(R.ok());
  CHECK(R.ExactMatched == 4);
  std::filesystem::remove(Dir + "/transpose_tiled.run.json");
  CHECK_FALSE(buildReport({Dir, "g", "d", "t", {"transpose_tiled"}}).AllCorrect);
  std::filesystem::remove(Dir + "/transpose_tiled.report.json");
  const ReportOutput Missing = buildReport({Dir, "g", "d", "t", {"transpose_tiled"}});
  CHECK_FALSE(Missing.ok());
  CHECK(Missing.Json["samples"][0].contains("error"));
}

TEST_CASE("ncu source page: the access width of a SASS memory instruction") {
  CHECK(accessBits("LDS R3, [R4]") == 32);
  CHECK(accessBits("@!P1  LDS.64 R12, [R5]") == 64);
  CHECK(accessBits("  @P0 STG.E.128 desc[UR4][R2.64], R4") == 128);
  CHECK(accessBits("LDG.E.U8 R0, desc[UR4][R2.64]") == 8);
  CHECK(accessBits("STS.U16 [R1], R2") == 16);
  CHECK(accessBits("ATOMS.POPC.INC.32 RZ, [R3+URZ]") == 32);
  // Operand text is not the mnemonic: "R2.64" does not make a 64-bit access.
  CHECK(accessBits("LDG.E R0, desc[UR4][R2.64]") == 32);
}
