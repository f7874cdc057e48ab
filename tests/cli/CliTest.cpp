// End-to-end tests of the bankwise command line: outputs, JSON, and exit
// code 2 with a located message for bad input.

#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <array>
#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

struct Result {
  int Code = -1;
  std::string Out; ///< stdout and stderr together
};

/// Runs bankwise with Args (shell-quoted by the caller), capturing output;
/// Env ("NAME=VALUE", shell-quoted) is set for the run.
Result bankwise(const std::string &Args, const std::string &Env = "") {
  // timeout(1) turns a hang into exit code 124, which every test rejects.
  const std::string Cmd = (Env.empty() ? "" : "env " + Env + " ") + "timeout " +
                          std::to_string(BANKWISE_CLI_TIMEOUT) + " " + std::string(BANKWISE_BIN) +
                          " " + Args + " 2>&1";
  Result R;
  FILE *P = popen(Cmd.c_str(), "r");
  REQUIRE(P != nullptr);
  std::array<char, 4096> Buf{};
  std::size_t N;
  while ((N = fread(Buf.data(), 1, Buf.size(), P)) > 0)
    R.Out.append(Buf.data(), N);
  const int Status = pclose(P);
  R.Code = WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
  return R;
}

bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

std::string tmp(const std::string &Name) {
  return std::string(BANKWISE_TEST_TMPDIR) + "/" + Name;
}

} // namespace

TEST_CASE("--version and --help for every subcommand") {
  Result R = bankwise("--version");
  CHECK(R.Code == 0);
  CHECK(contains(R.Out, "bankwise 0."));
  for (const char *Sub : {"model", "perm-stats"}) {
    R = bankwise(std::string(Sub) + " --help");
    CHECK(R.Code == 0);
    CHECK(contains(R.Out, "--json"));
  }
  R = bankwise("");
  CHECK(R.Code == 2);
}

TEST_CASE("model: the DMM worked example of seed 000 Fig. 4") {
  Result R = bankwise("model --machine dmm --w 4 --l 3 --warp 0,1,10,6 --warp 8,9,14,15");
  CHECK(R.Code == 0);
  CHECK(contains(R.Out, "W(0): congestion 2"));
  CHECK(contains(R.Out, "W(1): congestion 1"));
  CHECK(contains(R.Out, "time: 5 time units"));
  R = bankwise("model --machine umm --w 4 --l 3 --warp 0,1,10,6 --warp 8,9,14,15 --json");
  CHECK(R.Code == 0);
  const auto J = nlohmann::json::parse(R.Out);
  CHECK(J["time"] == 7);
  CHECK(J["rounds"][0]["warps"][0]["groups"] == 3);
  CHECK(J["rounds"][0]["warps"][1]["groups"] == 2);
  CHECK(J["machine"] == "umm(w: 4, l: 3)");
}

TEST_CASE("model: sm_90 wavefronts and sectors") {
  std::string Stride16, Contig;
  for (int L = 0; L < 32; ++L) {
    Stride16 += (L ? "," : "") + std::to_string(L * 16);
    Contig += (L ? "," : "") + std::to_string(L);
  }
  Result R = bankwise("model --machine sm_90 --elem f64 --warp " + Stride16 + " --json");
  CHECK(R.Code == 0);
  auto J = nlohmann::json::parse(R.Out);
  CHECK(J["warps"][0]["shared_wavefronts"] == 32);
  CHECK(J["warps"][0]["global_sectors"] == 32);
  R = bankwise("model --machine sm_90 --elem f32x4 --warp " + Contig);
  CHECK(R.Code == 0);
  CHECK(contains(R.Out, "shared 4 wavefronts"));
  CHECK(contains(R.Out, "global 16 sectors in 4 lines"));
  // A broadcast float4: the load's lanes pair up (2), the store's do not (4).
  std::string Broadcast;
  for (int L = 0; L < 32; ++L)
    Broadcast += L ? ",0" : "0";
  R = bankwise("model --machine sm_90 --elem f32x4 --warp " + Broadcast + " --json");
  CHECK(R.Code == 0);
  J = nlohmann::json::parse(R.Out);
  CHECK(J["op"] == "load");
  CHECK(J["warps"][0]["shared_wavefronts"] == 2);
  R = bankwise("model --machine sm_90 --elem f32x4 --store --warp " + Broadcast + " --json");
  CHECK(R.Code == 0);
  J = nlohmann::json::parse(R.Out);
  CHECK(J["op"] == "store");
  CHECK(J["warps"][0]["shared_wavefronts"] == 4);
}

TEST_CASE("model: a trace file with HMM rounds") {
  const std::string Path = tmp("hmm.trace");
  std::ofstream(Path) << "round global\n0 1 2 3\n4 5 6 7\nround shared\n0 1 2 3\n4 5 6 7\n";
  Result R = bankwise("model --machine hmm --d 1 --w 4 --L 10 --barrier --trace " + Path);
  CHECK(R.Code == 0);
  // Global: 2 warps + L - 1 = 11; shared: 2 more units.
  CHECK(contains(R.Out, "time: 13 time units"));
}

TEST_CASE("model: bad input exits 2 with a located message") {
  Result R = bankwise("model --machine dmm --w 4 --warp 0,1,zz");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "error: --warp #0: lane 2: expected a non-negative address"));
  R = bankwise("model --machine dmm --w 0 --warp 0");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "dmm parameter 'w' must be at least 1"));
  R = bankwise("model --machine tpu --warp 0");
  CHECK(R.Code == 2);
  const std::string Path = tmp("bad.trace");
  std::ofstream(Path) << "round\n1 2 3\n4 five\n";
  R = bankwise("model --machine dmm --w 4 --trace " + Path);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Path + ":3:3: error: expected an address or '-', got 'five'"));
  CHECK(contains(R.Out, "4 five\n  ^"));
  R = bankwise("model --machine sm_90 --elem f24 --warp 0");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "unknown element type 'f24'"));
}

TEST_CASE("perm-stats: the distributions of seed 001 Sec. IV") {
  Result R = bankwise("perm-stats --perm bitrev --n 1048576 --json");
  CHECK(R.Code == 0);
  auto J = nlohmann::json::parse(R.Out);
  CHECK(J["D_w(P)"] == 1048576);
  CHECK(J["D_w(P^-1)"] == 1048576);
  R = bankwise("perm-stats --perm shuffle --n 65536 --w 32 --json");
  J = nlohmann::json::parse(R.Out);
  CHECK(J["D_w(P)"] == 2 * 65536 / 32);
  CHECK(J["D_w(P^-1)"] == 2 * 65536 / 32);
  R = bankwise("perm-stats --perm identity --n 4096");
  CHECK(R.Code == 0);
  CHECK(contains(R.Out, "D_w(P)    = 128"));
  R = bankwise("perm-stats --perm transpose --rows 64 --cols 32 --json");
  J = nlohmann::json::parse(R.Out);
  CHECK(J["n"] == 2048);
  CHECK(J["D_w(P)"] == 2048);
}

TEST_CASE("perm-stats: invalid permutation files exit 2 naming the entry") {
  const std::string Path = tmp("dup.bin");
  {
    std::ofstream Out(Path, std::ios::binary);
    const unsigned char Bytes[] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    Out.write(reinterpret_cast<const char *>(Bytes), sizeof Bytes);
  }
  Result R = bankwise("perm-stats --perm file --file " + Path);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Path + ": error: entry 2 (byte offset 8) is 1, which an "
                               "earlier entry already holds"));
  R = bankwise("perm-stats --perm bitrev --n 1000");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "power of two"));
  R = bankwise("perm-stats --perm random");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "needs --n"));
}

TEST_CASE("analyze: a sample in text and JSON") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/transpose_crsw.bw";
  Result R = bankwise("analyze " + Sample);
  CHECK(R.Code == 0);
  CHECK(contains(R.Out, "shared write of 'b' (raw), 32 warp executions"));
  CHECK(contains(R.Out, "DMM congestion 32"));
  R = bankwise("analyze " + Sample + " --json");
  REQUIRE(R.Code == 0);
  const auto J = nlohmann::json::parse(R.Out);
  const auto &Sites = J["kernels"][0]["sites"];
  REQUIRE(Sites.size() == 2);
  CHECK(Sites[0]["access"] == "write");
  CHECK(Sites[0]["congestion"]["max"] == 32);
  CHECK(Sites[1]["congestion"]["max"] == 1);
  CHECK(J["kernels"][0]["time"] == 1056);
}

TEST_CASE("analyze: -D, --machine and --data") {
  const std::string Dir = std::string(BANKWISE_SOURCE_DIR) + "/samples/";
  Result R = bankwise("analyze " + Dir + "stride_access.bw -D N=3072 --json");
  REQUIRE(R.Code == 0);
  auto J = nlohmann::json::parse(R.Out);
  CHECK(J["kernels"][0]["sites"][0]["congestion"]["max"] == 1); // gcd(3, 32)
  R = bankwise("analyze " + Dir + "stride_access.bw --machine \"umm(w: 32, l: 400)\" --json");
  REQUIRE(R.Code == 0);
  J = nlohmann::json::parse(R.Out);
  CHECK(J["kernels"][0]["time_machine"] == "umm(w: 32, l: 400)");
  // --data gives the values of an index array.
  const std::string Bw = tmp("gather.bw"), Bin = tmp("gather.bin");
  std::ofstream(Bw) << "machine dmm(w: 32, l: 1)\n"
                       "kernel g(a: shared f32[64], p: shared i32[64]) threads 64 {\n"
                       "  let x = a[p[tid]]\n}\n";
  {
    std::ofstream Out(Bin, std::ios::binary);
    for (std::uint32_t I = 0; I < 64; ++I) {
      const std::uint32_t V = I % 2 * 32 + I / 2; // lanes pair up in banks
      Out.write(reinterpret_cast<const char *>(&V), 4);
    }
  }
  R = bankwise("analyze " + Bw + " --json");
  REQUIRE(R.Code == 0);
  J = nlohmann::json::parse(R.Out);
  CHECK(J["kernels"][0]["sites"][0]["data_dependent"] == true);
  // 64 words: at most two distinct addresses per bank, whatever p holds.
  CHECK(J["kernels"][0]["sites"][0]["worst_congestion"] == 2);
  R = bankwise("analyze " + Bw + " --data p=" + Bin + " --json");
  REQUIRE(R.Code == 0);
  J = nlohmann::json::parse(R.Out);
  CHECK(J["kernels"][0]["sites"][0]["congestion"]["max"] == 2);
  // compile takes the same --data: the comments and the report then carry
  // the exact figures instead of the worst case.
  R = bankwise("compile " + Bw + " -o " + tmp("data.cu") + " --report " + tmp("data.json"));
  REQUIRE(R.Code == 0);
  J = nlohmann::json::parse(std::ifstream(tmp("data.json")));
  CHECK(J["kernels"][0]["sites"][0]["data_dependent"] == true);
  R = bankwise("compile " + Bw + " -o " + tmp("data.cu") + " --report " + tmp("data.json") + " --data p=" + Bin);
  REQUIRE(R.Code == 0);
  J = nlohmann::json::parse(std::ifstream(tmp("data.json")));
  CHECK(J["kernels"][0]["sites"][0]["data_dependent"] == false);
  CHECK(J["kernels"][0]["sites"][0]["congestion"]["max"] == 2);
  std::ifstream Cu(tmp("data.cu"));
  const std::string Text((std::istreambuf_iterator<char>(Cu)), std::istreambuf_iterator<char>());
  CHECK(Text.find("read of 'a' [raw] (shared): sm_90 wavefronts 2; DMM congestion 2") != std::string::npos);
  R = bankwise("compile " + Bw + " -o " + tmp("data.cu") + " --data q=" + Bin);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "--data: no array named 'q'"));
}

TEST_CASE("analyze and compile: a condition that reads data, worst case or exact with --data") {
  const std::string Bw = tmp("guard.bw"), Bin = tmp("guard.bin");
  std::ofstream(Bw) << "target sm_90\n"
                       "kernel k(f: global i32[256], a: global f32[256], b: global f32[256]) grid (1) block (256) {\n"
                       "  if f[tx] > 0 { b[tx] = a[tx] }\n}\n";
  {
    std::ofstream Out(Bin, std::ios::binary);
    for (std::int32_t I = 0; I < 256; ++I) {
      const std::int32_t V = I < 64 ? 1 : 0; // two warps take the branch
      Out.write(reinterpret_cast<const char *>(&V), 4);
    }
  }
  auto Write = [](const nlohmann::json &J) {
    for (const auto &S : J["kernels"][0]["sites"])
      if (S["array"] == "b")
        return S;
    FAIL("no site of 'b'");
    return nlohmann::json();
  };
  Result R = bankwise("analyze " + Bw + " --json");
  REQUIRE(R.Code == 0);
  nlohmann::json B = Write(nlohmann::json::parse(R.Out));
  CHECK(B["warp_executions"] == 8);
  CHECK(B["data_guard"]["source"] == "f");
  CHECK(B["data_guard"]["kind"] == "condition");
  CHECK(B["data_guard"]["location"] == "3:3");
  R = bankwise("analyze " + Bw);
  CHECK(contains(R.Out, "data-dependent branch: whether a lane makes the access depends on 'f'"));
  R = bankwise("analyze " + Bw + " --data f=" + Bin + " --json");
  REQUIRE(R.Code == 0);
  B = Write(nlohmann::json::parse(R.Out));
  CHECK(B["warp_executions"] == 2);
  CHECK_FALSE(B.contains("data_guard"));
  // compile emits the condition as written, and its report is exact with --data.
  R = bankwise("compile " + Bw + " -o " + tmp("guard.cu") + " --report " + tmp("guard.json"));
  REQUIRE(R.Code == 0);
  B = Write(nlohmann::json::parse(std::ifstream(tmp("guard.json"))));
  CHECK(B["data_guard"]["source"] == "f");
  std::ifstream Cu(tmp("guard.cu"));
  const std::string Text((std::istreambuf_iterator<char>(Cu)), std::istreambuf_iterator<char>());
  CHECK(contains(Text, "if (f[tx] > 0) {"));
  CHECK(contains(Text, "worst case, every lane taking the branch on 'f'"));
  R = bankwise("compile " + Bw + " -o " + tmp("guard.cu") + " --report " + tmp("guard.json") + " --data f=" + Bin);
  REQUIRE(R.Code == 0);
  B = Write(nlohmann::json::parse(std::ifstream(tmp("guard.json"))));
  CHECK(B["warp_executions"] == 2);
}

TEST_CASE("analyze: bad input exits 2 with a located message") {
  const std::string Bad = tmp("bad.bw");
  std::ofstream(Bad) << "machine dmm(w: 32, l: 1)\nkernel k(a: shared f32[8]) threads 8 {\n"
                        "  let x = a[nope]\n}\n";
  Result R = bankwise("analyze " + Bad);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Bad + ":3:13: error: unknown name 'nope'"));
  std::ofstream(Bad) << "machine dmm(w: 32, l: 1)\nkernel k(a: shared f32[8]) threads 8 {\n"
                        "  let x = a[tid * 2]\n}\n";
  R = bankwise("analyze " + Bad);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Bad + ":3:11: error: index 0 of 'a' is 8, outside 0..7"));
  R = bankwise("analyze " + tmp("missing.bw"));
  CHECK(R.Code == 2);
  R = bankwise("analyze " + Bad + " -D oops");
  CHECK(R.Code == 2);
  R = bankwise("analyze " + Bad + " --machine \"dmm(q: 3)\"");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "--machine 'dmm(q: 3)': unknown parameter 'q' for machine dmm; it takes 'w' and 'l'"));
  // The command line reads machines as a file does: l is not optional.
  R = bankwise("analyze " + Bad + " --machine \"dmm(w: 32)\"");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "--machine 'dmm(w: 32)': machine dmm needs parameter 'l'"));
  R = bankwise("analyze " + Bad + " --machine sm_99");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "--machine 'sm_99': unknown target 'sm_99'"));
  R = bankwise("analyze " + Bad + " --machine \"hmm(d: 2, w: 32, L: 0)\"");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "--machine 'hmm(d: 2, w: 32, L: 0)'"));
  R = bankwise("analyze " + Bad + " --data a=" + tmp("missing.bin"));
  CHECK(R.Code == 2);
}

TEST_CASE("analyze: a generic kernel's instances each get their layout, named by kernel") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/transpose_any_shape.bw";
  Result R = bankwise("analyze " + Sample + " --kernel transpose_f16");
  REQUIRE(R.Code == 0);
  CHECK(contains(R.Out, "layout auto of 'tile' in kernel 'transpose_f16' -> pad(2)"));
  CHECK(!contains(R.Out, "in kernel 'transpose_f32'"));
  R = bankwise("compile " + Sample + " -o " + tmp("generic.cu"));
  REQUIRE(R.Code == 0);
  std::ifstream In(tmp("generic.cu"));
  const std::string Cu((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  // Each instance's tile comment says its own choice, once.
  CHECK(contains(Cu, "__shared__ float tile[4615]; // layout pad(1) of [71][64]"));
  CHECK(contains(Cu, "__shared__ __half tile[5214]; // layout pad(2) of [79][64]"));
  const auto Tile = Cu.find("__shared__ float tile[4615];");
  REQUIRE(Tile != std::string::npos);
  const std::string Line = Cu.substr(Tile, Cu.find('\n', Tile) - Tile);
  CHECK(Line.find("chosen by layout auto") == Line.rfind("chosen by layout auto"));
}

TEST_CASE("analyze: layout auto is explained, --transformed shows before and after") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/transpose_tiled.bw";
  Result R = bankwise("analyze " + Sample + " -D N=256 --transformed");
  REQUIRE(R.Code == 0);
  CHECK(contains(R.Out, "layout auto of 'tile' -> pad(1)"));
  CHECK(contains(R.Out, "as written (auto, as raw): DMM congestion 32, wavefronts 32; "
                        "transformed (pad(1)): DMM congestion 1, wavefronts 1"));
  R = bankwise("analyze " + Sample + " -D N=256 --transformed --json --seed 9");
  REQUIRE(R.Code == 0);
  const auto J = nlohmann::json::parse(R.Out);
  CHECK(J["seed"] == 9);
  CHECK(J["layout_decisions"][0]["chosen"] == "pad(1)");
  CHECK(J["kernels"][0]["sites"][3]["before"]["sm90_wavefronts"]["max"] == 32);
  CHECK(J["kernels"][0]["sites"][3]["sm90_wavefronts"]["max"] == 1);
}

TEST_CASE("analyze --html: one page with each site's warp, histogram, layouts and source") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/transpose_tiled.bw";
  const std::string Page = tmp("analyze-report.html");
  std::filesystem::remove(Page);
  Result R = bankwise("analyze " + Sample + " -D N=256 --html " + Page);
  REQUIRE(R.Code == 0);
  CHECK(contains(R.Out, "layout auto of 'tile' -> pad(1)")); // the text report as ever
  std::ifstream In(Page);
  const std::string Html((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  auto Count = [&](const std::string &Needle) {
    std::size_t N = 0;
    for (std::size_t At = Html.find(Needle); At != std::string::npos; At = Html.find(Needle, At + 1))
      ++N;
    return N;
  };
  CHECK(Html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(Count("<section class=\"site\"") == 4);
  CHECK(Count("class=\"histogram\"") == 4);
  CHECK(Count("class=\"element-grid\"") == 4); // 'tile' as written and transformed, two sites
  CHECK(contains(Html, "as written: auto"));
  CHECK(contains(Html, "transformed: pad(1)"));
  CHECK(contains(Html, "data-bank=\"0\" data-turn=\"32\"")); // the column read as written: 32 lanes, bank 0
  CHECK(contains(Html, "tile[tx][ty + 8 * k]"));                // its source line
  CHECK_FALSE(contains(Html, "<script"));
  CHECK_FALSE(std::filesystem::exists(Page + ".tmp"));
  // Over every size: the figures hold for all, the warps are drawn at the
  // representative sizes.
  const std::string Any = std::string(BANKWISE_SOURCE_DIR) + "/samples/bit_reversal.bw";
  R = bankwise("analyze " + Any + " --html " + tmp("any-shape.html"));
  REQUIRE(R.Code == 0);
  std::ifstream In2(tmp("any-shape.html"));
  const std::string Html2((std::istreambuf_iterator<char>(In2)), std::istreambuf_iterator<char>());
  CHECK(contains(Html2, "the warps drawn are at"));
  CHECK(contains(Html2, "class=\"bank-map\""));
  // A page that cannot be written: exit 2, nothing left behind.
  R = bankwise("analyze " + Sample + " -D N=256 --html " + tmp("no-such-dir/r.html"));
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "cannot write"));
  CHECK_FALSE(std::filesystem::exists(tmp("no-such-dir")));
}

TEST_CASE("schedule colored on a global copy: analyze shows seed 001's shape and pass kernels, compile emits them") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/offline_permutation_scheduled.bw";
  Result R = bankwise("analyze " + Sample + " -D N=65536 --transformed");
  REQUIRE(R.Code == 0);
  CHECK(contains(R.Out, "schedule colored of 'permute_random': b[P(i)] = a[i] for n = 65536 as seed 001's "
                        "scheduled permutation of global memory: shape 64 x 1024 (R x C), StripCols 8"));
  CHECK(contains(R.Out, "launch permute_random = permute_random_pass0, permute_random_pass1, permute_random_pass2"));
  // The pass kernels are kernels like any other: each analyzed, then the
  // launch against the scatter as written.
  CHECK(contains(R.Out, "kernel 'permute_random_pass1' (" + Sample));
  CHECK(contains(R.Out, "launch 'permute_random' as written (kernel 'permute_random'): 4096 global requests"));
  CHECK(contains(R.Out, "12288 data requests, 73728 sectors with the s and d loads (6 per data request), every "
                        "shared access congestion 1"));
  R = bankwise("analyze " + Sample + " -D N=65536 --transformed --json");
  REQUIRE(R.Code == 0);
  const auto J = nlohmann::json::parse(R.Out);
  CHECK(J["schedules"][0]["shape"]["rows"] == 64);
  CHECK(J["schedules"][0]["shape"]["cols"] == 1024);
  CHECK(J["schedules"][0]["kernels"][2] == "permute_random_pass2");
  // f64 (the third kernel): 128 x 512, strips of 4 columns.
  CHECK(J["schedules"][2]["shape"]["rows"] == 128);
  CHECK(J["schedules"][2]["shape"]["cols"] == 512);
  REQUIRE(J["kernels"].size() == 9);
  CHECK(J["kernels"][1]["kernel"] == "permute_random_pass1");
  CHECK(J["kernels"][1]["sites"].size() == 8);
  for (const auto &S : J["kernels"][1]["sites"])
    CHECK(((S["space"] == "shared" && S["sm90_wavefronts"]["max"] == 1) ||
           (S["space"] == "global" && S["sm90_sectors"]["max"] <= 4)));
  CHECK(J["kernels"][2]["transformed_launch"]["after"]["global_requests"] == 3 * 65536 / 32 * 2);
  const std::string Cu = tmp("scheduled.cu"), Report = tmp("scheduled.report.json");
  R = bankwise("compile " + Sample + " -D N=4096 -o " + Cu + " --header " + tmp("scheduled.h") +
               " --harness --report " + Report);
  REQUIRE(R.Code == 0);
  std::ifstream In(Report);
  const auto Rep = nlohmann::json::parse(In);
  REQUIRE(Rep["kernels"].size() == 9);
  CHECK(Rep["kernels"][0]["kernel"] == "permute_random_pass0");
  CHECK(Rep["kernels"][1]["kernel"] == "permute_random_pass1");
}

TEST_CASE("schedule colored on a global copy: what it cannot schedule exits 2, located") {
  const std::string Bad = tmp("bad_scheduled.bw");
  auto Run = [&](const std::string &Text) {
    std::ofstream(Bad) << Text;
    return bankwise("compile " + Bad + " -o " + tmp("bad_scheduled.cu"));
  };
  // Not one-to-one: two threads write one element.
  Result R = Run("target sm_90\nkernel k(a: global f32[4096], b: global f32[4096]) grid (16) block (256)"
                 " schedule colored {\n  b[tid / 2] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Bad + ":3:9: error: kernel 'k': schedule colored needs a one-to-one copy, but threads "
                              "tid = 0 and tid = 1 both writes element 0"));
  // 2-byte elements: the sm_90 shapes are for 4- and 8-byte ones.
  R = Run("target sm_90\nkernel k(a: global f16[4096], b: global f16[4096]) grid (16) block (256)"
          " schedule colored {\n  b[4095 - tid] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Bad + ":2:10: error: kernel 'k': schedule colored on global arrays moves 4- or 8-byte elements"));
  CHECK(contains(R.Out, "'a' is f16 (2 bytes)"));
  // f64 has a shape up to 2^26; 2^27 would need 256 KB a row or strip.
  R = Run("target sm_90\nparam N = 1 << 27\nkernel k(a: global f64[N], b: global f64[N]) grid (N / 1024) block (1024)"
          " schedule colored {\n  b[N - 1 - tid] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "n = 134217728 has no sm_90 shape for 8-byte elements"));
  CHECK(contains(R.Out, "(of the powers of two, 2^26 is the largest n with a shape for these elements)"));
  // No shape: n = 2^28 (a row or a strip would exceed 227 KB).
  R = Run("target sm_90\nparam N = 1 << 28\nkernel k(a: global f32[N], b: global f32[N]) grid (N / 1024) block (1024)"
          " schedule colored {\n  b[N - 1 - tid] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Bad + ":3:8: error: kernel 'k': schedule colored on global arrays: HMM schedule: "
                              "n = 268435456 has no sm_90 shape"));
  CHECK(contains(R.Out, "(of the powers of two, 2^27 is the largest n with a shape for these elements)"));
  // n not a multiple of 128 (R a multiple of 4, C of 32).
  R = Run("target sm_90\nkernel k(a: global f32[96], b: global f32[96]) threads 96 schedule colored {\n"
          "  b[95 - tid] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Bad + ":2:8: error: kernel 'k': schedule colored on global arrays: HMM schedule: n = 96"));
  // One array for both sides; shared and global mixed; a memory machine.
  R = Run("target sm_90\nkernel k(a: global f32[4096]) grid (16) block (256) schedule colored {\n"
          "  a[4095 - tid] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "'a' is both the source and the destination"));
  R = Run("target sm_90\nkernel k(a: global f32[1024], b: shared f32[1024]) threads 1024 schedule colored {\n"
          "  b[1023 - tid] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "or between one-dimensional global arrays (seed 001)"));
  R = Run("machine umm(w: 32, l: 4)\nkernel k(a: global f32[4096], b: global f32[4096]) threads 4096"
          " schedule colored {\n  b[4095 - tid] = a[tid]\n}\n");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Bad + ":2:8: error: kernel 'k': schedule colored on global arrays plans seed 001's passes"));
  // analyze reports the same errors.
  std::ofstream(Bad) << "target sm_90\nkernel k(a: global f32[4096], b: global f32[4096]) grid (16) block (256)"
                        " schedule colored {\n  b[tid / 2] = a[tid]\n}\n";
  R = bankwise("analyze " + Bad);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "both writes element 0"));
}

TEST_CASE("experiment rap-table: Table II in text and JSON") {
  Result R = bankwise("experiment rap-table --w 8,16 --trials 50");
  REQUIRE(R.Code == 0);
  CHECK(contains(R.Out, "seed 002 Table II"));
  CHECK(contains(R.Out, "stride"));
  R = bankwise("experiment rap-table --w 16 --trials 50 --json");
  REQUIRE(R.Code == 0);
  const auto J = nlohmann::json::parse(R.Out);
  CHECK(J["cells"].size() == 12);
  R = bankwise("experiment rap-table --dims 3");
  CHECK(R.Code == 2);
  R = bankwise("experiment rap-table --w 1");
  CHECK(R.Code == 2);
}

TEST_CASE("analyze and compile refuse kernels too large to analyze, at once") {
  const std::string Huge = tmp("huge.bw");
  std::ofstream(Huge) << "machine dmm(w: 32, l: 1)\n"
                         "kernel k(m: shared f32[64]) threads 10241048576 {\n"
                         "  for t in 0..0 { let x = m[t] }\n}\n";
  Result R = bankwise("analyze " + Huge);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Huge + ":2:8: error: kernel 'k' has 1 blocks of 10241048576 threads"));
  R = bankwise("compile " + Huge + " -o " + tmp("huge.cu"));
  CHECK(R.Code == 2);
}

TEST_CASE("analyze and compile estimate memory and work before starting, and stop past the limits") {
  const std::string Big = tmp("bigperm.bw");
  std::ofstream(Big) << "target sm_90\nparam N = 1 << 32\npermutation P = random(N, seed: 1)\n"
                        "kernel k(a: global f32[N], b: global f32[N]) grid (N / 256) block (256) {\n"
                        "  b[P(tid)] = a[tid]\n}\n";
  // 2^32 threads through a random table: refused at once, not after minutes.
  Result R = bankwise("analyze " + Big);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Big + ":5:3: error: kernel 'k' needs about 2^27 warp evaluations to analyze"));
  std::filesystem::remove(tmp("bigperm.cu"));
  R = bankwise("compile " + Big + " -o " + tmp("bigperm.cu"));
  CHECK(R.Code == 2);
  CHECK(!std::filesystem::exists(tmp("bigperm.cu")));
  // The limits are flags; past them, the error names what costs most.
  R = bankwise("analyze " + Big + " -D N=16777216 --memory-limit 0.01");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, Big + ":3:13: error: these sizes need about 64.0 MiB of memory (64.0 MiB of it for the "
                              "table of permutation 'P' (2^24 entries)), more than the limit of 10.2 MiB"));
  R = bankwise("compile " + Big + " -D N=16777216 --time-limit 0.5 -o " + tmp("bigperm.cu"));
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "of work"));
  CHECK(contains(R.Out, "--time-limit SECONDS"));
  CHECK(!std::filesystem::exists(tmp("bigperm.cu")));
  R = bankwise("analyze " + Big + " -D N=65536 --memory-limit 0.01 --time-limit 10");
  CHECK(R.Code == 0);
}

TEST_CASE("mutated samples end in exit 0 or 2 through analyze and compile") {
  // Deterministic mutations of every sample: inserted tokens, replaced
  // numbers, deleted spans. Each run is bounded by timeout(1); a crash, an
  // abort or a hang fails the test.
  const char *Tokens[] = {"0", "-1", "1 << 40", "tid", "bx", "(", "}", "/ 0", "layout xor",
                          "layout pad(7)", "sync", "step -1", "holds P", "threads 33",
                          "schedule colored", "9223372036854775807"};
  std::vector<std::string> Samples;
  for (const auto &E : std::filesystem::directory_iterator(std::string(BANKWISE_SOURCE_DIR) + "/samples"))
    if (E.path().extension() == ".bw")
      Samples.push_back(E.path().string());
  std::sort(Samples.begin(), Samples.end());
  std::uint64_t State = 2026;
  auto Next = [&State](std::uint64_t Bound) {
    State = State * 6364136223846793005ULL + 1442695040888963407ULL;
    return (State >> 33) % Bound;
  };
  for (int I = 0; I < 40; ++I) {
    std::ifstream In(Samples[Next(Samples.size())]);
    std::string Src((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
    for (int M = 0; M < 2; ++M) {
      const std::size_t Pos = Next(Src.size());
      switch (Next(3)) {
      case 0:
        Src.insert(Pos, Tokens[Next(sizeof Tokens / sizeof *Tokens)]);
        break;
      case 1:
        Src.replace(Pos, 1, std::to_string(Next(2) ? 33 : 1 << 20));
        break;
      default:
        Src.erase(Pos, 1 + Next(10));
      }
    }
    const std::string Path = tmp("mutant" + std::to_string(I) + ".bw");
    std::ofstream(Path) << Src;
    for (const std::string &Cmd : {"analyze " + Path, "compile " + Path + " -o " + tmp("mutant.cu")}) {
      const Result R = bankwise(Cmd);
      CAPTURE(Cmd);
      CAPTURE(R.Out);
      CHECK((R.Code == 0 || R.Code == 2));
    }
  }
}

TEST_CASE("compile of runtime params: --size picks the sizes of the predictions, a bad one is exit 2") {
  const std::string Cu = tmp("runtime_transpose.cu");
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/transpose_any_shape.bw";
  Result R = bankwise("compile " + Sample + " --size R=100 --size C=33 -o " + Cu);
  REQUIRE(R.Code == 0);
  std::ifstream In(Cu);
  const std::string Text((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  CHECK(contains(Text, "// Predicted at R = 100, C = 33 (representative sizes"));
  CHECK(contains(Text, "long long R, long long C, cudaStream_t stream"));
  for (const char *Bad : {"--size R", "--size R=x", "--size =4", "--size R=4x"}) {
    CAPTURE(Bad);
    R = bankwise("compile " + Sample + " " + Bad + " -o " + Cu);
    CHECK(R.Code == 2);
    CHECK(contains(R.Out, "error: --size"));
  }
  R = bankwise("compile " + Sample + " --size Q=4 -o " + Cu);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "'Q' is not a runtime size of the program"));
  R = bankwise("compile " + std::string(BANKWISE_SOURCE_DIR) + "/samples/transpose_tiled.bw --size N=64 -o " + Cu);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "the program has no runtime params"));
  // -D binds a runtime param for good: a size is then no longer runtime.
  R = bankwise("compile " + Sample + " -D R=250 --size R=64 -o " + Cu);
  CHECK(R.Code == 2);
}

// --dump-ir-after prints the program after each named pass, as .bw text
// that parses again: the dump after schedule-colored is the rewritten
// program, conflict-free as written.
TEST_CASE("--dump-ir-after prints every pass's program, which parses back") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/permutation_colored.bw";
  Result R = bankwise("analyze " + Sample + " --dump-ir-after=all");
  REQUIRE(R.Code == 0);
  const std::size_t Bind = R.Out.find("# bankwise: the program after pass 'bind-sizes'"),
                    Colored = R.Out.find("# bankwise: the program after pass 'schedule-colored'"),
                    Layout = R.Out.find("# bankwise: the program after pass 'layout-auto'");
  REQUIRE(Bind != std::string::npos);
  REQUIRE(Colored != std::string::npos);
  REQUIRE(Layout != std::string::npos);
  CHECK(Bind < Colored);
  CHECK(Colored < Layout);
  const std::string AfterColored = R.Out.substr(Colored, Layout - Colored);
  // Each access site's id (ir/Sites.h) as a comment: the shared rewrite
  // keeps the copy's two accesses and their ids through every pass.
  CHECK(contains(R.Out.substr(Bind, Colored - Bind), "  b[P(tid)] = a[tid]  # sites #1 b, #2 a\n"));
  CHECK(contains(R.Out.substr(Layout), "  # sites #1 b, #2 a\n"));
  CHECK(contains(AfterColored, "schedule_src("));
  CHECK(!contains(AfterColored, "schedule colored"));
  {
    std::ofstream Out(tmp("after-colored.bw"));
    Out << AfterColored;
  }
  Result Again = bankwise("analyze " + tmp("after-colored.bw") + " --json");
  REQUIRE_MESSAGE(Again.Code == 0, Again.Out);
  const auto J = nlohmann::json::parse(Again.Out);
  for (const auto &K : J["kernels"])
    for (const auto &S : K["sites"])
      if (S["array"] == "a" || S["array"] == "b")
        CHECK(S["congestion"]["max"] == 1);
  // Only the passes named; a wrong name is exit 2 and names the passes.
  R = bankwise("compile " + Sample + " -o " + tmp("dump.cu") + " --dump-ir-after=layout-auto");
  CHECK(R.Code == 0);
  CHECK(!contains(R.Out, "after pass 'bind-sizes'"));
  CHECK(contains(R.Out, "after pass 'layout-auto'"));
  R = bankwise("compile " + Sample + " -o " + tmp("dump.cu") + " --dump-ir-after=parse");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out,
                 "unknown pass 'parse' (the passes: bind-sizes, schedule-colored, layout-auto, place-shared, check, "
                 "value-facts, analyze, or all)"));
}

// Site ids over the passes: the kernels schedule-colored writes in place of
// a global copy get ids above every id the program had, so an id never
// names two accesses (seed 001's three passes replace permute_random's
// b[P(tid)] = a[tid], sites 1 and 2).
TEST_CASE("--dump-ir-after: a pass's new accesses get ids no earlier access had") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/offline_permutation_scheduled.bw";
  const Result R = bankwise("analyze " + Sample + " -D N=65536 --dump-ir-after=bind-sizes,schedule-colored");
  REQUIRE(R.Code == 0);
  const std::size_t Colored = R.Out.find("# bankwise: the program after pass 'schedule-colored'");
  REQUIRE(Colored != std::string::npos);
  const std::string Before = R.Out.substr(0, Colored), After = R.Out.substr(Colored);
  CHECK(contains(Before, "  b[P(tid)] = a[tid]  # sites #1 b, #2 a\n"));
  CHECK(contains(Before, "  b[P(tid)] = a[tid]  # sites #5 b, #6 a\n"));
  auto Ids = [](const std::string &Text) {
    std::vector<int> Out;
    for (std::size_t At = Text.find("#"); At != std::string::npos; At = Text.find("#", At + 1))
      if (At + 1 < Text.size() && std::isdigit(static_cast<unsigned char>(Text[At + 1])))
        Out.push_back(std::stoi(Text.substr(At + 1)));
    return Out;
  };
  const std::vector<int> Old = Ids(Before), New = Ids(After);
  REQUIRE(Old.size() == 6);
  REQUIRE(!New.empty());
  CHECK(*std::min_element(New.begin(), New.end()) == 7);
  CHECK(std::set<int>(New.begin(), New.end()).size() == New.size()); // each id once
}

// The passes are one table (pipeline/Pipeline.cpp): the help of
// --dump-ir-after names each, in order, and `all` dumps after each, the
// place-shared, check, value-facts and analyze passes last (they change
// nothing: the program they decided on, checked and analyzed).
TEST_CASE("--dump-ir-after's help and 'all' follow the pass table, check and analyze passes included") {
  const std::vector<std::string> Passes = {"bind-sizes", "schedule-colored", "layout-auto", "place-shared",
                                           "check",      "value-facts",      "analyze"};
  for (const char *Command : {"analyze", "compile"}) {
    CAPTURE(Command);
    const Result Help = bankwise(std::string(Command) + " --help");
    REQUIRE(Help.Code == 0);
    const std::size_t Option = Help.Out.find("--dump-ir-after");
    REQUIRE(Option != std::string::npos);
    const std::string Line = Help.Out.substr(Option, Help.Out.find('\n', Option) - Option);
    CHECK(contains(Line, "bind-sizes, schedule-colored, layout-auto, place-shared, check, value-facts, analyze "
                         "(comma-separated), or all"));
    // Each pass's own line, in order.
    std::size_t Last = Option;
    for (const std::string &P : Passes) {
      const std::size_t At = Help.Out.find(P + ": ", Last);
      CHECK_MESSAGE(At != std::string::npos, P);
      Last = At == std::string::npos ? Last : At;
    }
  }
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/transpose_tiled.bw";
  const Result R = bankwise("compile " + Sample + " -o " + tmp("passes.cu") + " --dump-ir-after=all");
  REQUIRE(R.Code == 0);
  std::size_t Last = 0;
  for (const std::string &P : Passes) {
    CAPTURE(P);
    const std::size_t At = R.Out.find("# bankwise: the program after pass '" + P + "'");
    REQUIRE(At != std::string::npos);
    CHECK(At >= Last);
    Last = At;
  }
  // The passes after layout-auto leave the program as it made it;
  // place-shared's decisions come first, as comment lines.
  const std::size_t LayoutBody = R.Out.find('\n', R.Out.find("after pass 'layout-auto'")) + 1,
                    Place = R.Out.find("# bankwise: the program after pass 'place-shared'");
  const std::string AfterLayout = R.Out.substr(LayoutBody, Place - LayoutBody);
  CHECK(!AfterLayout.empty());
  std::size_t Body = 0;
  for (const char *P : {"place-shared", "check", "value-facts", "analyze"}) {
    CAPTURE(P);
    Body = R.Out.find('\n', R.Out.find(std::string("# bankwise: the program after pass '") + P + "'")) + 1;
    while (R.Out.compare(Body, 16, "# place-shared: ") == 0)
      Body = R.Out.find('\n', Body) + 1;
    CHECK(R.Out.compare(Body, AfterLayout.size(), AfterLayout) == 0);
  }
  CHECK(contains(R.Out, "# place-shared: kernel 'transpose': 'tile' "));
  CHECK(Body + AfterLayout.size() == R.Out.size());
}

TEST_CASE("analyze and compile: CUDA's atomics name the DSL's spelling, exit 2, never a crash") {
  const std::string Bad = std::string(BANKWISE_SOURCE_DIR) + "/tests/dsl/bad/atomics.bw";
  for (const char *Command : {"analyze ", "compile "}) {
    Result R = bankwise(Command + Bad + (std::string(Command) == "compile " ? " -o " + tmp("atomics.cu") : ""));
    CAPTURE(R.Out);
    CHECK(R.Code == 2);
    CHECK(contains(R.Out, Bad + ":11:3: error: 'atomicAdd(&h[tx], 1)' is written 'atomic_add(h[tx], 1)' in bankwise"));
    CHECK(contains(R.Out, Bad + ":15:3: error: 'atomic_and' on 'f' of type f32: CUDA's atomicAnd takes i32, u32, "
                                "u64 elements"));
  }
  CHECK(!std::filesystem::exists(tmp("atomics.cu")));
}

TEST_CASE("a path that is not UTF-8 gives JSON with U+FFFD, not a crash") {
  // Linux file names are bytes; nlohmann::json once threw on them (an
  // uncaught exception: abort) in analyze --json and compile --report.
  const std::string Bw = tmp("caf\xe9.bw"), Report = tmp("r\xe9port.json");
  std::filesystem::copy_file(std::string(BANKWISE_SOURCE_DIR) + "/samples/sum.bw", Bw,
                             std::filesystem::copy_options::overwrite_existing);
  Result R = bankwise("analyze '" + Bw + "' --json");
  REQUIRE_MESSAGE(R.Code == 0, R.Out);
  CHECK(contains(nlohmann::json::parse(R.Out).dump(), "caf\xef\xbf\xbd.bw")); // U+FFFD
  R = bankwise("compile '" + Bw + "' -o " + tmp("latin1.cu") + " --report '" + Report + "'");
  REQUIRE_MESSAGE(R.Code == 0, R.Out);
  std::ifstream In(Report);
  CHECK(!nlohmann::json::parse(In).empty());
}

TEST_CASE("--threads and BANKWISE_THREADS: a count from 0 to 1024, else exit 2") {
  const std::string Sample = std::string(BANKWISE_SOURCE_DIR) + "/samples/sum.bw";
  CHECK(bankwise("analyze " + Sample + " --threads 1").Code == 0);
  CHECK(bankwise("analyze " + Sample + " --threads 0").Code == 0);
  Result R = bankwise("analyze " + Sample + " --threads 5000");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "--threads"));
  R = bankwise("analyze " + Sample + " --threads -1");
  CHECK(R.Code == 2);
  R = bankwise("compile " + Sample + " -o " + tmp("threads.cu") + " --threads two");
  CHECK(R.Code == 2);
  for (const char *Bad : {"abc", "-3", "1025", "99999999999999999999", "4x"}) {
    R = bankwise("analyze " + Sample + " ", /*Env=*/std::string("BANKWISE_THREADS='") + Bad + "'");
    CHECK_MESSAGE(R.Code == 2, Bad);
    CHECK(contains(R.Out, "BANKWISE_THREADS '"));
  }
  // The option wins over the variable (a bad variable is then not read).
  CHECK(bankwise("analyze " + Sample + " --threads 2", "BANKWISE_THREADS=abc").Code == 0);
  CHECK(bankwise("analyze " + Sample, "BANKWISE_THREADS=3").Code == 0);
  CHECK(bankwise("analyze " + Sample, "BANKWISE_THREADS=").Code == 0); // empty: unset
}

// compile --torch DIR (docs/torch.md): the five files of the extension,
// written together; --torch-module names it; a program with nothing to wrap
// is exit 2 with notes saying why, and writes nothing.
TEST_CASE("compile --torch: the extension's files, its module name, and what it cannot wrap") {
  namespace fs = std::filesystem;
  const std::string Samples = std::string(BANKWISE_SOURCE_DIR) + "/samples/";
  const std::string Dir = tmp("torch-ext");
  fs::remove_all(Dir);
  Result R = bankwise("compile " + Samples + "transpose_any_shape.bw --torch " + Dir);
  REQUIRE(R.Code == 0);
  CHECK(contains(R.Out, "4 ops: torch.ops.transpose_any_shape.transpose_f32, transpose_f64, transpose_f16, transpose_i8"));
  std::vector<std::string> Names;
  for (const auto &E : fs::directory_iterator(Dir))
    Names.push_back(E.path().filename().string());
  std::sort(Names.begin(), Names.end());
  CHECK(Names == std::vector<std::string>{"setup.py", "transpose_any_shape.cu", "transpose_any_shape.h",
                                          "transpose_any_shape.py", "transpose_any_shape_torch.cu"});
  auto read = [](const std::string &Path) {
    std::ifstream In(Path);
    return std::string((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  };
  const std::string Ops = read(Dir + "/transpose_any_shape_torch.cu");
  CHECK(contains(Ops, "TORCH_LIBRARY(transpose_any_shape, m) {"));
  CHECK(contains(Ops, "m.def(\"transpose_f32(Tensor in_) -> Tensor\");"));
  CHECK(contains(Ops, "m.def(\"transpose_f32.out(Tensor in_, *, Tensor(a!) out) -> Tensor(a!)\");"));
  CHECK(contains(read(Dir + "/transpose_any_shape.cu"), "#include \"transpose_any_shape.h\""));
  CHECK(!contains(read(Dir + "/transpose_any_shape.cu"), "int main("));
  // The Python files parse (where there is a Python).
  if (std::system("python3 -c pass >/dev/null 2>&1") == 0) {
    for (const char *Py : {"/setup.py", "/transpose_any_shape.py"}) {
      CAPTURE(Py);
      CHECK(std::system(("python3 -c \"import ast, sys; ast.parse(open(sys.argv[1]).read())\" " + Dir + Py).c_str()) == 0);
    }
  } else {
    MESSAGE("no python3: the emitted Python files are not parsed");
  }
  // --torch-module, and -o beside --torch: both written.
  const std::string Dir2 = tmp("torch-ext2");
  fs::remove_all(Dir2);
  R = bankwise("compile " + Samples + "bit_reversal.bw --torch " + Dir2 + " --torch-module fft_order -o " +
               tmp("torch-bitrev.cu") + " --harness");
  REQUIRE(R.Code == 0);
  CHECK(contains(R.Out, "2 ops: torch.ops.fft_order.bitrev_naive, bitrev_tiled"));
  CHECK(fs::exists(Dir2 + "/fft_order_torch.cu"));
  CHECK(contains(read(Dir2 + "/fft_order_torch.cu"), "TORCH_LIBRARY(fft_order, m)"));
  CHECK(contains(read(tmp("torch-bitrev.cu")), "int main("));
  // Nothing to wrap: u32 elements, and a runtime size no dimension gives.
  const std::string Bad = tmp("torch-bad.bw"), BadDir = tmp("torch-bad");
  std::ofstream(Bad) << "param N\n"
                        "kernel ints(a: global u32[64], b: global u32[64]) grid (1) block (64) { b[tx] = a[tx] }\n"
                        "kernel grid_only(a: global f32[64], b: global f32[64]) grid (N) block (64) {\n"
                        "  if bx == 0 { b[tx] = a[tx] }\n}\n";
  fs::remove_all(BadDir);
  R = bankwise("compile " + Bad + " --torch " + BadDir);
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "note: --torch: kernel 'ints' has no op: array 'a' has elements of type u32"));
  CHECK(contains(R.Out, "note: --torch: kernel 'grid_only' has no op: no tensor dimension determines N"));
  CHECK(contains(R.Out, "error: --torch: no kernel or launch of the program can be an op"));
  CHECK(!fs::exists(BadDir));
  // Neither -o nor --torch; options of the .cu without -o.
  R = bankwise("compile " + Samples + "bit_reversal.bw");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "--output or --torch"));
  R = bankwise("compile " + Samples + "bit_reversal.bw --torch " + Dir2 + " --harness");
  CHECK(R.Code == 2);
  CHECK(contains(R.Out, "describe the .cu of --output"));
}
