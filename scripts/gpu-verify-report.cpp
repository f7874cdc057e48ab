// Aggregates a gpu-verify.sh run into gpu-verify.json and gpu-verify.md:
// per sample and kernel, the harness's verdict and timing, and the model's
// predicted shared wavefronts per instruction and global sectors per request
// beside what Nsight Compute measured. Built by gpu-verify.sh with the host
// compiler and the nlohmann-json headers of .deps/.
//
//   gpu-verify-report DIR GPU DRIVER DATE OUT_PREFIX SAMPLE...
//
// For each SAMPLE, DIR holds SAMPLE.report.json (bankwise compile --report),
// SAMPLE.run.json (the harness's JSON line, or nothing when it failed),
// SAMPLE.run.log, and SAMPLE.ncu.csv (ncu --csv --page raw).

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Splits one CSV line (double-quoted fields).
std::vector<std::string> csvFields(const std::string &Line) {
  std::vector<std::string> Out;
  std::string Cur;
  bool Quoted = false;
  for (char C : Line) {
    if (C == '"')
      Quoted = !Quoted;
    else if (C == ',' && !Quoted) {
      Out.push_back(Cur);
      Cur.clear();
    } else
      Cur += C;
  }
  Out.push_back(Cur);
  return Out;
}

double number(std::string S) {
  std::string T;
  for (char C : S)
    if (C != ',' && C != ' ')
      T += C;
  try {
    return T.empty() ? NAN : std::stod(T);
  } catch (...) {
    return NAN;
  }
}

/// Metric sums per kernel name (over every launch of it) from ncu's raw CSV.
std::map<std::string, std::map<std::string, double>> readNcu(const std::string &Path) {
  std::map<std::string, std::map<std::string, double>> Out;
  std::istringstream In(readFile(Path));
  std::string Line;
  std::vector<std::string> Header;
  while (std::getline(In, Line)) {
    if (Line.rfind("\"ID\"", 0) == 0) {
      Header = csvFields(Line);
      std::getline(In, Line); // units
      continue;
    }
    if (Header.empty() || Line.empty() || Line[0] != '"')
      continue;
    const auto F = csvFields(Line);
    std::string Kernel;
    for (std::size_t I = 0; I < F.size() && I < Header.size(); ++I)
      if (Header[I] == "Kernel Name")
        Kernel = F[I];
    // "ns::name(args)" or "name": keep the function's own name.
    if (auto P = Kernel.find('('); P != std::string::npos)
      Kernel = Kernel.substr(0, P);
    if (auto P = Kernel.rfind("::"); P != std::string::npos)
      Kernel = Kernel.substr(P + 2);
    if (auto P = Kernel.rfind(' '); P != std::string::npos)
      Kernel = Kernel.substr(P + 1);
    for (std::size_t I = 0; I < F.size() && I < Header.size(); ++I)
      if (Header[I].find("__") != std::string::npos) {
        const double V = number(F[I]);
        if (!std::isnan(V))
          Out[Kernel][Header[I]] += V;
      }
  }
  return Out;
}

/// Weighted mean over sites of a class: sum(mean * executions) / sum(executions).
struct Agg {
  double Weighted = 0, Executions = 0;
  bool Unknown = false;
  double mean() const { return Executions > 0 ? Weighted / Executions : NAN; }
};

std::string fmtNum(double V) {
  if (std::isnan(V))
    return "–";
  char B[64];
  std::snprintf(B, sizeof B, "%.3g", V);
  return B;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 6) {
    std::cerr << "usage: gpu-verify-report DIR GPU DRIVER DATE OUT_PREFIX SAMPLE...\n";
    return 2;
  }
  const std::string Dir = Argv[1];
  json Result = {{"gpu", Argv[2]}, {"driver", Argv[3]}, {"date", Argv[4]}, {"samples", json::array()}};
  std::ostringstream Md;
  Md << "# gpu-verify\n\n"
     << "GPU: " << Argv[2] << "; driver " << Argv[3] << "; " << Argv[4] << ".\n\n"
     << "`scripts/gpu-verify.sh`: every sample compiled by `bankwise compile --harness`, run (every output element "
        "checked against the CPU reference; median of 21 timed runs after 3 warm-ups), and profiled once with "
        "`ncu --clock-control none` on a small launch. Predictions are the sm_90 model's, weighted over the "
        "kernel's access sites (including the staging copies codegen adds); measured figures are the kernel's "
        "counters: shared wavefronts per shared instruction "
        "(`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum` / "
        "`smsp__sass_inst_executed_op_shared_{ld,st}.sum`) and global sectors per request "
        "(`l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum` / `l1tex__t_requests_...`). "
        "A kernel with one site of a class compares that site exactly.\n\n"
     << "| sample | kernel | correct | median ms | GB/s | shared ld wf/inst (pred / meas) | shared st wf/inst "
        "| global ld sectors/req | global st sectors/req | instr (pred / meas: sh ld, sh st, gl ld, gl st) |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  bool AllOk = true;
  for (int A = 6; A < Argc; ++A) {
    const std::string S = Argv[A];
    json Sample = {{"sample", S}};
    json Report, Run;
    try {
      Report = json::parse(readFile(Dir + "/" + S + ".report.json"));
    } catch (...) {
      Sample["error"] = "bankwise compile failed";
    }
    try {
      std::string Text = readFile(Dir + "/" + S + ".run.json");
      if (auto P = Text.rfind("{\"program\""); P != std::string::npos)
        Run = json::parse(Text.substr(P, Text.find('\n', P) - P));
    } catch (...) {
    }
    if (Run.is_null()) {
      Sample["error"] = Sample.value("error", std::string("the harness did not print its result; see ") + S +
                                                  ".run.log");
      AllOk = false;
    }
    const auto Ncu = readNcu(Dir + "/" + S + ".ncu.csv");
    Sample["kernels"] = json::array();
    const json NoKernels = json::array();
    const json &Kernels = Report.is_object() && Report.contains("kernels") ? Report["kernels"] : NoKernels;
    for (const json &K : Kernels) {
      const std::string Name = K.value("kernel", "");
      std::map<std::string, Agg> Pred; // sh_ld, sh_st, gl_ld, gl_st
      for (const json &Site : K["sites"]) {
        const bool Shared = Site.value("space", "") == "shared" && !Site.contains("device_space");
        const bool Write = Site.value("access", "") == "write";
        const std::string Key = std::string(Shared ? "sh_" : "gl_") + (Write ? "st" : "ld");
        const json &Cost = Site[Shared ? "sm90_wavefronts" : "sm90_sectors"];
        const double Exec = Site.value("warp_executions", 0.0);
        if (Site.contains("device_space"))
          Pred[Key].Unknown = true; // a shared array kept in global memory: no global prediction
        if (Cost.is_null())
          Pred[Key].Unknown = true;
        else
          Pred[Key].Weighted += Cost.value("mean", 0.0) * Exec;
        Pred[Key].Executions += Exec;
      }
      json JK = {{"kernel", Name}, {"sites", K["sites"]}};
      json KR;
      for (const json &R : Run.is_object() && Run.contains("kernels") ? Run["kernels"] : NoKernels)
        if (R.value("kernel", "") == Name)
          KR = R;
      JK["correct"] = KR.is_null() ? json(nullptr) : KR["correct"];
      JK["median_ms"] = KR.is_null() ? json(nullptr) : KR["median_ms"];
      JK["gbps"] = KR.is_null() ? json(nullptr) : KR["gbps"];
      if (KR.is_null() || !KR.value("correct", false))
        AllOk = false;
      const auto It = Ncu.find(Name);
      auto Metric = [&](const std::string &M) -> double {
        if (It == Ncu.end())
          return NAN;
        auto F = It->second.find(M);
        return F == It->second.end() ? NAN : F->second;
      };
      struct Class {
        const char *Key, *Num, *Den;
      };
      const Class Classes[] = {
          {"sh_ld", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum"},
          {"sh_st", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__sass_inst_executed_op_shared_st.sum"},
          {"gl_ld", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
          {"gl_st", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"}};
      std::string Cells[4], Instr;
      int C = 0;
      for (const Class &Cl : Classes) {
        const Agg &P = Pred[Cl.Key];
        const double Num = Metric(Cl.Num), Den = Metric(Cl.Den);
        const double Meas = Den > 0 ? Num / Den : NAN;
        const double PredV = P.Unknown ? NAN : P.mean();
        JK["compare"][Cl.Key] = {{"predicted", std::isnan(PredV) ? json(nullptr) : json(PredV)},
                                 {"measured", std::isnan(Meas) ? json(nullptr) : json(Meas)},
                                 {"predicted_instructions", P.Executions},
                                 {"measured_instructions", std::isnan(Den) ? json(nullptr) : json(Den)},
                                 {"measured_numerator", std::isnan(Num) ? json(nullptr) : json(Num)}};
        Cells[C++] = fmtNum(PredV) + " / " + fmtNum(Meas);
        Instr += (Instr.empty() ? "" : ", ") + fmtNum(P.Executions) + "/" + fmtNum(Den);
      }
      Md << "| " << S << " | " << Name << " | "
         << (KR.is_null() ? "no result" : (KR.value("correct", false) ? "yes" : "**no**")) << " | "
         << (KR.is_null() ? "–" : fmtNum(KR.value("median_ms", NAN))) << " | "
         << (KR.is_null() ? "–" : fmtNum(KR.value("gbps", NAN))) << " | " << Cells[0] << " | " << Cells[1] << " | "
         << Cells[2] << " | " << Cells[3] << " | " << Instr << " |\n";
      Sample["kernels"].push_back(JK);
    }
    if (Sample.contains("error"))
      Md << "| " << S << " | – | **" << Sample["error"].get<std::string>() << "** | | | | | | | |\n";
    Result["samples"].push_back(Sample);
  }
  Result["all_correct"] = AllOk;
  Md << "\nAll kernels correct: " << (AllOk ? "yes" : "**no**") << ".\n\n"
     << "Per-site predictions (location in the .bw file, array, access, predicted cost) are in "
        "`gpu-verify.json` under each kernel's `sites`; instruction counts compare predicted warp executions "
        "with executed SASS instructions (a compiler that merges or splits accesses shows up there).\n";
  const std::string Prefix = Argv[5];
  std::ofstream(Prefix + ".json") << Result.dump(1) << "\n";
  std::ofstream(Prefix + ".md") << Md.str();
  std::cout << Md.str();
  return AllOk ? 0 : 1;
}
