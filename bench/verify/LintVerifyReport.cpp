// Issue [7] item 7: the lint's predictions for its own test corpus against
// Nsight Compute. For each corpus file F, DIR holds
//
//   F.lint.json       `bankwise lint F --format json -D n=...` (made where
//                     Clang is: bench/lint-corpus/, checked current by CTest)
//   F.as-written.lint.json  the same with --as-written, where it differs
//                     (read with --as-written, for a build that keeps the
//                     source's accesses)
//   F.cuda-sass.csv   ncu's source page of a run of F's launch functions
//                     (bench/gpu-lint-corpus.sh), absent when F did not build
//
// Per kernel, per (CUDA line, shared/global, load/store): the SASS
// instructions ncu attributes to the line, summed, beside the lint sites on
// that line of the same kind. Measured: shared wavefronts per instruction
// executed, global sectors per request. Predicted: the sites' figures
// (sm90_wavefronts or sm90_sectors). A group is exact when every site in it
// has one value (min = max) and they agree: then the measured mean must
// equal it, whatever the sites' execution counts. Otherwise the measured
// mean must lie in the sites' [min, max]. Data-dependent sites, lines with
// instructions but no site and sites without instructions are listed, not
// judged. Exit code 0 when every judged group holds, 1 otherwise, 2 on bad
// input.
//
//   lint-verify-report --dir DIR --out PREFIX [--gpu G] [--date D] FILE...
#include "NcuSource.h"
#include "Report.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

namespace {

namespace v = bankwise::verify;
using nlohmann::json;

struct Site {
  int Line = 0, Col = 0;
  std::string Array, Space, Access;
  bool DataDependent = false;
  bool Has = false;
  int ElemBytes = 0;
  std::int64_t Min = 0, Max = 0;
  /// At the launch's fixed sizes: warp requests and the summed figure.
  std::int64_t Requests = -1;
  double Total = 0;
};

int lineOf(const std::string &Location, int *Col) {
  // ".../x.cu:12:19"
  const auto C2 = Location.rfind(':');
  const auto C1 = C2 == std::string::npos ? std::string::npos : Location.rfind(':', C2 - 1);
  if (C1 == std::string::npos)
    return 0;
  *Col = std::atoi(Location.c_str() + C2 + 1);
  return std::atoi(Location.c_str() + C1 + 1);
}

std::vector<Site> sitesOf(const json &Kernel) {
  std::vector<Site> Out;
  if (!Kernel.contains("sites") || !Kernel["sites"].is_array())
    return Out;
  for (const json &S : Kernel["sites"]) {
    if (!S.is_object())
      continue;
    Site X;
    X.Line = lineOf(S.value("location", ""), &X.Col);
    X.Array = S.value("array", "");
    X.Space = S.value("space", "");
    X.Access = S.value("access", "");
    if (S.value("atomic", false))
      X.Access = "atomic"; // judged against ATOMS, not stores
    X.DataDependent = S.value("data_dependent", false);
    X.ElemBytes = S.value("elem_bytes", 0);
    const char *Key = X.Space == "shared" ? "sm90_wavefronts" : "sm90_sectors";
    if (S.contains(Key) && S[Key].is_object() && S[Key]["min"].is_number() && S[Key]["max"].is_number()) {
      X.Has = true;
      X.Min = S[Key].value("min", std::int64_t(0));
      X.Max = S[Key].value("max", std::int64_t(0));
    }
    const std::string TotalKey = std::string(Key) + "_total";
    if (S.contains("requests") && S["requests"].is_number() && S.contains(TotalKey) && S[TotalKey].is_number()) {
      X.Requests = S["requests"].get<std::int64_t>();
      X.Total = S[TotalKey].get<double>();
    }
    Out.push_back(X);
  }
  return Out;
}

/// The ncu function of a lint kernel: "strided<1>" is found in the
/// signature "void strided<1>(const float *, float *)", "carve" by its short name.
const v::FunctionSource *functionOf(const v::NcuSource &N, const std::string &Name) {
  // ncu writes template arguments with their casts: "strided<(int)1>".
  auto Uncast = [](std::string S) {
    for (std::size_t I; (I = S.find("<(")) != std::string::npos || (I = S.find(", (")) != std::string::npos;) {
      const std::size_t Open = S.find('(', I), Close = S.find(')', Open);
      if (Close == std::string::npos)
        break;
      S.erase(Open, Close - Open + 1);
    }
    return S;
  };
  for (const v::FunctionSource &F : N.Functions) {
    if (Name.find('<') != std::string::npos ? Uncast(F.Signature).find(Name + "(") != std::string::npos
                                            : F.Name == Name)
      return &F;
  }
  return nullptr;
}

struct Totals {
  int Exact = 0, ExactOk = 0, Transformed = 0, Range = 0, RangeOk = 0, RangePredicated = 0, DataDependent = 0, Unpaired = 0, NoSass = 0,
      Kernels = 0, Profiled = 0, AtomicsO0 = 0;
};

std::string num(double X) { return fmt::format("{:.3f}", X); }

/// Why the hardware moved fewer wavefronts or sectors than the source's
/// accesses, where the SASS shows it: nvcc turned several source accesses
/// into one vector instruction (on this line or, when it merged this line's
/// access into another's, on another line of the kernel), or it issued
/// fewer instructions than the source makes requests (a reload it proved
/// redundant). Empty when the SASS shows neither.
std::string transformation(const v::LineGroup &G, const std::vector<v::LineGroup> &All,
                           const std::vector<const Site *> &Here, const std::vector<Site> &Sites,
                           std::int64_t Requests) {
  int ElemBits = 0;
  for (const Site *S : Here)
    ElemBits = std::max(ElemBits, S->ElemBytes * 8);
  if (ElemBits == 0)
    return "";
  auto WideOps = [&](const v::LineGroup &L, int Bits) {
    std::set<std::string> Ops;
    for (const std::string &S : L.Sass)
      if (v::accessBits(S) > Bits)
        Ops.insert(std::string(v::sassMnemonic(S)));
    std::string Out;
    for (const std::string &O : Ops)
      Out += (Out.empty() ? "" : ", ") + O;
    return Out;
  };
  if (G.WidestBits > ElemBits)
    return fmt::format("nvcc vectorized: {} on this line carries several {}-byte source accesses",
                       WideOps(G, ElemBits), ElemBits / 8);
  if (G.Executed + 0.5 < static_cast<double>(Requests))
    return fmt::format("nvcc removed accesses: {:.0f} instructions executed for the source's {} requests",
                       G.Executed, Requests);
  std::string Elsewhere;
  for (const v::LineGroup &L : All) {
    if (L.Line == G.Line || L.AddressSpace != G.AddressSpace || L.Operation != G.Operation)
      continue;
    int LineElem = 0;
    for (const Site &S : Sites)
      if (S.Line == L.Line)
        LineElem = std::max(LineElem, S.ElemBytes * 8);
    if (LineElem > 0 && L.WidestBits > LineElem)
      Elsewhere += fmt::format("{}{} on line {}", Elsewhere.empty() ? "" : ", ", WideOps(L, LineElem), L.Line);
  }
  if (!Elsewhere.empty())
    return "nvcc merged accesses into vector instructions elsewhere in the kernel: " + Elsewhere;
  return "";
}

} // namespace

int main(int argc, char **argv) {
  CLI::App App{"Compares bankwise lint's predictions for its corpus with Nsight Compute's source counters"};
  std::string Dir, Out, Gpu = "unknown GPU", Date = "unknown", Build = "nvcc -O3 -lineinfo",
                         Suffix = ".cuda-sass.csv";
  std::vector<std::string> Files;
  bool AsWritten = false;
  App.add_option("--dir", Dir, "predictions and ncu exports")->required();
  App.add_flag("--as-written", AsWritten,
               "judge the lint's --as-written predictions (F.as-written.lint.json where there is one): for a "
               "build that keeps the source's accesses");
  App.add_option("--out", Out, "writes OUT.md and OUT.json")->required();
  App.add_option("--gpu", Gpu);
  App.add_option("--date", Date);
  App.add_option("--build", Build, "how the corpus was built, for the report's header");
  App.add_option("--csv-suffix", Suffix, "the ncu exports are STEM + SUFFIX");
  App.add_option("files", Files, "corpus file stems")->required();
  CLI11_PARSE(App, argc, argv);

  Totals T;
  json Rows = json::array();
  std::string Md;
  auto Row = [&](const std::string &File, const std::string &Kernel, int Line, const std::string &Kind,
                 const std::string &Predicted, const std::string &Measured, int Instr, const std::string &Verdict) {
    Rows.push_back({{"file", File}, {"kernel", Kernel}, {"line", Line}, {"kind", Kind}, {"predicted", Predicted},
                    {"measured", Measured}, {"sass_instructions", Instr}, {"verdict", Verdict}});
    Md += fmt::format("| {} | `{}` | {} | {} | {} | {} | {} | {} |\n", File, Kernel, Line, Kind, Predicted, Measured,
                      Instr, Verdict);
  };
  bool BadInput = false;
  for (const std::string &F : Files) {
    std::string Text;
    if ((!AsWritten || !v::readFile(Dir + "/" + F + ".as-written.lint.json", Text)) &&
        !v::readFile(Dir + "/" + F + ".lint.json", Text)) {
      std::cerr << "lint-verify-report: " << Dir << "/" << F << ".lint.json is missing\n";
      BadInput = true;
      continue;
    }
    json Lint;
    try {
      Lint = json::parse(Text);
    } catch (const json::exception &E) {
      std::cerr << "lint-verify-report: " << F << ".lint.json: " << E.what() << "\n";
      BadInput = true;
      continue;
    }
    std::optional<v::NcuSource> Ncu;
    if (v::readFile(Dir + "/" + F + Suffix, Text)) {
      try {
        Ncu = v::parseNcuSource(Text);
      } catch (const v::NcuSourceError &E) {
        std::cerr << "lint-verify-report: " << F << Suffix << ": " << E.what() << "\n";
        BadInput = true;
        continue;
      }
    }
    for (const json &File : Lint.value("files", json::array()))
      for (const json &K : File.value("kernels", json::array())) {
        const std::string Name = K.value("name", "");
        if (!K.value("analyzed", false))
          continue;
        ++T.Kernels;
        const v::FunctionSource *Fn = Ncu ? functionOf(*Ncu, Name) : nullptr;
        if (!Fn) {
          Row(F, Name, 0, "-", "-", "-", 0, Ncu ? "not profiled (no such function in the export)" : "not built or not profiled");
          continue;
        }
        ++T.Profiled;
        const std::vector<Site> Sites = sitesOf(K);
        std::set<std::size_t> Paired;
        const std::vector<v::LineGroup> Groups = v::groupByLine(*Fn);
        for (const v::LineGroup &G : Groups) {
          // Shared atomics too (ATOMS, and the generic ATOM of a shared
          // address at -O0, which ncu counts as shared); global atomics'
          // sectors are not what the source counters report for RED.
          const bool SharedAtomic = G.AddressSpace == v::Space::Shared && G.Operation == v::Op::Atomic;
          if ((G.AddressSpace != v::Space::Shared && G.AddressSpace != v::Space::Global) ||
              (G.Operation != v::Op::Load && G.Operation != v::Op::Store && !SharedAtomic) || G.Executed <= 0)
            continue;
          const bool Shared = G.AddressSpace == v::Space::Shared;
          const std::string Space = Shared ? "shared" : "global",
                            Access = SharedAtomic ? "atomic" : G.Operation == v::Op::Load ? "load" : "store";
          const std::string Kind = Space + " " + Access;
          const double Measured = (Shared ? G.SharedWavefronts : G.GlobalSectors) / G.Executed;
          std::vector<const Site *> Here;
          bool Data = false;
          for (std::size_t I = 0; I < Sites.size(); ++I)
            if (Sites[I].Line == G.Line && Sites[I].Space == Space && Sites[I].Access == Access) {
              Here.push_back(&Sites[I]);
              Paired.insert(I);
              Data = Data || Sites[I].DataDependent || !Sites[I].Has;
            }
          const std::string Unit = Shared ? " wavefronts/instr" : " sectors/request";
          if (Here.empty()) {
            ++T.Unpaired;
            Row(F, Name, G.Line, Kind, "no site", num(Measured) + Unit, G.Instructions, "not judged: no lint site on this line");
            continue;
          }
          if (SharedAtomic && Build.find("-Xptxas -O0") != std::string::npos) {
            // ptxas -O0 issues every atomic lane by lane; the lint predicts
            // what -O3 issues (analysis/passes/AtomicIssue.h), judged in the
            // -O3 table.
            ++T.AtomicsO0;
            Row(F, Name, G.Line, Kind, "-", num(Measured) + Unit, G.Instructions,
                "not judged: ptxas -O0 issues atomics lane by lane, -O3 combines some "
                "(bench/results/h100/atomic-aggregation.md); see the -O3 table");
            continue;
          }
          if (Data) {
            ++T.DataDependent;
            Row(F, Name, G.Line, Kind, "data-dependent", num(Measured) + Unit, G.Instructions,
                "not judged: the lint gives a note, no figure");
            continue;
          }
          const std::string Sites0 = Here.size() > 1 ? fmt::format(" ({} sites)", Here.size()) : "";
          // The launch's sums, where the lint has them: every warp request
          // ncu counts, whatever predication or guards leave inactive
          // (a warp whose lanes are all off issues the instruction and
          // moves nothing: ncu counts it executed, the model has no request).
          if (std::all_of(Here.begin(), Here.end(), [](const Site *S) { return S->Requests >= 0; })) {
            double Total = 0;
            std::int64_t Requests = 0;
            for (const Site *S : Here) {
              Total += S->Total;
              Requests += S->Requests;
            }
            const double Got = Shared ? G.SharedWavefronts : G.GlobalSectors;
            ++T.Exact;
            const bool Ok = std::abs(Got - Total) <= 0.5;
            T.ExactOk += Ok;
            std::string Verdict = Ok ? "equal" : "DIFFERENT";
            if (!Ok && Got < Total)
              if (const std::string Why = transformation(G, Groups, Here, Sites, Requests); !Why.empty()) {
                ++T.Transformed;
                Verdict = "fewer than the source's accesses: " + Why;
              }
            const std::string What = Shared ? "wavefronts" : "sectors";
            Row(F, Name, G.Line, Kind,
                fmt::format("{:.0f} {} in {} requests ({}/request){}", Total, What, Requests,
                            num(Requests ? Total / static_cast<double>(Requests) : 0), Sites0),
                fmt::format("{:.0f} {} ({} per instruction executed)", Got, What, num(Measured)), G.Instructions,
                Verdict);
            continue;
          }
          std::int64_t Lo = Here.front()->Min, Hi = Here.front()->Max;
          bool Exact = true;
          for (const Site *S : Here) {
            Lo = std::min(Lo, S->Min);
            Hi = std::max(Hi, S->Max);
            Exact = Exact && S->Min == S->Max;
          }
          Exact = Exact && Lo == Hi;
          constexpr double Tol = 0.005;
          // Below the figure with every instruction predicated: nvcc turned the
          // line's guard into a predicate, and ncu counts the warps whose lanes
          // are all off as executions that move nothing, which lowers the mean
          // per instruction (no launch sums here to compare instead).
          const bool Predicated =
              Measured < static_cast<double>(Lo) - Tol && !G.Sass.empty() &&
              std::all_of(G.Sass.begin(), G.Sass.end(), [](const std::string &S) { return v::sassPredicated(S); });
          const std::string PredicatedNote =
              "below the figure per instruction executed: predicated (@P) instructions, which ncu counts "
              "executed for warps whose lanes are all off";
          if (Exact) {
            ++T.Exact;
            const bool Ok = std::abs(Measured - static_cast<double>(Lo)) <= Tol;
            T.ExactOk += Ok;
            T.Transformed += !Ok && Predicated;
            Row(F, Name, G.Line, Kind, fmt::format("{}{}", Lo, Sites0), num(Measured) + Unit, G.Instructions,
                Ok ? "equal" : Predicated ? PredicatedNote : "DIFFERENT");
          } else {
            ++T.Range;
            const bool Ok = Measured >= static_cast<double>(Lo) - Tol && Measured <= static_cast<double>(Hi) + Tol;
            T.RangeOk += Ok;
            T.RangePredicated += !Ok && Predicated;
            Row(F, Name, G.Line, Kind, fmt::format("{}..{}{}", Lo, Hi, Sites0), num(Measured) + Unit, G.Instructions,
                Ok ? "inside the range" : Predicated ? PredicatedNote : "OUTSIDE the range");
          }
        }
        for (std::size_t I = 0; I < Sites.size(); ++I)
          if (!Paired.count(I) && (Sites[I].Space == "shared" || Sites[I].Space == "global")) {
            ++T.NoSass;
            Row(F, Name, Sites[I].Line, Sites[I].Space + " " + Sites[I].Access,
                Sites[I].Has ? fmt::format("{}..{}", Sites[I].Min, Sites[I].Max) : "-", "-", 0,
                "not judged: no SASS instruction of this kind on the line");
          }
      }
  }
  // Fewer wavefronts where the SASS shows nvcc's vector or removed accesses
  // are not the model's error (a -G build, which keeps every source access,
  // is the model's test); any other difference is.
  const bool Ok = !BadInput && T.ExactOk + T.Transformed == T.Exact && T.RangeOk + T.RangePredicated == T.Range;
  std::string Head = fmt::format(
      "# bankwise lint against Nsight Compute: the lint corpus\n\n"
      "{}, {}, built with `{}`. Every kernel of `tests/lint/` that nvcc builds, run through its own launch "
      "functions (`bench/gpu-lint-corpus.sh`, n = 1024) and profiled with `ncu --section SourceCounters`. "
      "Predictions: `bankwise lint FILE --format json -D n=1024{}` (`bench/lint-corpus/`). "
      "Per CUDA line and kind of access, the SASS instructions ncu attributes to the line are summed. "
      "At the launch's fixed sizes the lint gives the launch's sums (`requests`, "
      "`sm90_wavefronts_total`, `sm90_sectors_total`): those are compared with ncu's `L1 Wavefronts "
      "Shared` and `L2 Theoretical Sectors Global` (wavefronts, not the bank-conflict counter); per "
      "request is the sum over the lint's requests. ncu's `Instructions Executed` also counts warps "
      "whose lanes a guard turned all off (predicated instructions issue and move nothing), so "
      "wavefronts per instruction executed is shown but not judged. Without sums, the measured mean "
      "per instruction is held to the lint's per-request value or range. {}Where nvcc merged accesses "
      "the lint keeps apart into one vector instruction (`LDS.64`, `LDS.128`) or removed a "
      "reload, the hardware moves fewer, and the row says which the SASS shows; where nvcc turned a guard "
      "into predicated instructions (`@P0 STS`), warps whose lanes are all off lower the mean per "
      "instruction, and the row says so. Shared atomics are judged where ATOMS carries them (the -O3 "
      "build: nvcc combines a warp's atomics where the lint says it does, analysis/passes/AtomicIssue.h).\n\n"
      "**{} of {} exact groups equal, {} fewer where nvcc transformed the accesses, {} other differences; {} of {} "
      "ranged groups inside their range, {} below it with predicated instructions**; {} kernels analyzed, {} "
      "profiled; "
      "{} data-dependent groups, {} lines with instructions but no lint site, {} sites without an instruction, "
      "{} shared atomic groups of a ptxas -O0 build (not judged).\n\n"
      "| file | kernel | line | access | predicted | measured | SASS instr | verdict |\n"
      "|---|---|---:|---|---|---|---:|---|\n",
      Gpu, Date, Build,
      AsWritten ? " --as-written" : "",
      AsWritten ? "The lint prices the source's accesses as written (`--as-written`). "
                : "The lint prices an unrolled loop's consecutive shared accesses as the vector ones nvcc -O3 "
                  "merges them into (`bankwise-vector-merge` notes), and every other access as written. ",
      T.ExactOk, T.Exact, T.Transformed, T.Exact - T.ExactOk - T.Transformed, T.RangeOk, T.Range, T.RangePredicated, T.Kernels, T.Profiled, T.DataDependent, T.Unpaired,
      T.NoSass, T.AtomicsO0);
  std::ofstream(Out + ".md", std::ios::binary) << Head << Md;
  json J = {{"gpu", Gpu},
            {"date", Date},
            {"exact", T.Exact},
            {"exact_equal", T.ExactOk},
            {"build", Build},
            {"fewer_by_nvcc", T.Transformed},
            {"ranged_below_predicated", T.RangePredicated},
            {"ranged", T.Range},
            {"ranged_inside", T.RangeOk},
            {"kernels", T.Kernels},
            {"profiled", T.Profiled},
            {"rows", Rows}};
  std::ofstream(Out + ".json", std::ios::binary) << J.dump(1) << "\n";
  std::cout << fmt::format("lint-verify-report: {}/{} exact equal, {} fewer by nvcc, {}/{} ranged inside, {} kernels, "
                           "{} profiled\n",
                           T.ExactOk, T.Exact, T.Transformed, T.RangeOk, T.Range, T.Kernels, T.Profiled);
  return BadInput ? 2 : Ok ? 0 : 1;
}
