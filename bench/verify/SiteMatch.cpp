#include "SiteMatch.h"
#include "NcuSource.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <tuple>

namespace bankwise::verify {

namespace {

std::string trim(std::string_view S) { return trimSpaces(S); }

bool startsWith(const std::string &S, std::string_view P) { return S.rfind(P, 0) == 0; }

std::vector<std::string> splitLines(std::string_view Text) {
  std::vector<std::string> Out;
  std::size_t Pos = 0;
  while (Pos <= Text.size()) {
    std::size_t End = Text.find('\n', Pos);
    if (End == std::string_view::npos)
      End = Text.size();
    Out.emplace_back(Text.substr(Pos, End - Pos));
    Pos = End + 1;
  }
  return Out;
}

bool near(double A, double B) { return std::fabs(A - B) <= 1e-6 * std::max(1.0, std::fabs(B)); }

std::string num(double V) {
  if (std::isnan(V))
    return "–";
  if (std::fabs(V) < 1e15 && std::fabs(V - std::round(V)) <= 1e-6 * std::max(1.0, std::fabs(V)))
    return fmt::format("{}", static_cast<long long>(std::round(V)));
  return fmt::format("{:.6g}", V);
}

} // namespace

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Match: return "yes";
  case Verdict::Mismatch: return "no";
  case Verdict::NotExact: return "not exact";
  case Verdict::RemovedByNvcc: return "removed by nvcc";
  case Verdict::NotMeasured: return "not measured";
  case Verdict::NotFound: return "not found";
  case Verdict::Unpredicted: return "no site";
  }
  return "?";
}

std::string PredictedSite::label() const { return fmt::format("{} {} of '{}'", Key, Access, Array); }

CuMarkers parseCuMarkers(std::string_view CuText) {
  static const std::regex SiteRe(R"(^//\s*(\d+):(\d+) (read|write|atomic_\w+) of '([^']*)'.*?\((shared|global)\b)");
  static const std::regex StagingRe(R"(^//\s*Staging \(added by codegen\): '([^']*)'(.*)$)");
  static const std::regex KernelRe(R"(__global__\s+void\s+(?:__launch_bounds__\s*\([^)]*\)\s+)?(\w+)\s*\()");
  CuMarkers Out;
  const auto Lines = splitLines(CuText);
  std::string Kernel;
  std::vector<Marker> Pending;
  for (std::size_t I = 0; I < Lines.size(); ++I) {
    const int LineNo = static_cast<int>(I) + 1;
    const std::string &Raw = Lines[I];
    const std::string T = trim(Raw);
    std::smatch M;
    if (Raw.find("__global__") != std::string::npos && std::regex_search(Raw, M, KernelRe)) {
      Kernel = M[1];
      Out.Kernels.push_back(Kernel);
      Pending.clear();
      continue;
    }
    if (!Raw.empty() && Raw[0] == '}' && T == "}") { // a kernel's closing brace (functions start at column 0)
      Kernel.clear();
      Pending.clear();
      continue;
    }
    if (Kernel.empty())
      continue;
    if (startsWith(T, "//")) {
      if (std::regex_search(T, M, SiteRe)) {
        Marker K;
        K.K = Marker::Kind::Site;
        K.CuLine = LineNo;
        K.BwLine = std::stoi(M[1]);
        K.BwCol = std::stoi(M[2]);
        K.Access = M[3].str().rfind("atomic_", 0) == 0 ? "atomic" : M[3].str(); // the report's access kind
        K.Array = M[4];
        K.Space = M[5];
        Pending.push_back(std::move(K));
      } else if (std::regex_search(T, M, StagingRe)) {
        Marker K;
        K.CuLine = LineNo;
        K.Array = M[1];
        const std::string Rest = M[2];
        if (Rest.find("copies it in") != std::string::npos)
          K.K = Marker::Kind::StagingIn;
        else if (Rest.find("goes back") != std::string::npos)
          K.K = Marker::Kind::StagingOut;
        else {
          Out.Warnings.push_back(fmt::format(".cu line {}: a staging comment neither in nor out: {}", LineNo, T));
          continue;
        }
        Pending.push_back(std::move(K));
      } else if (std::regex_search(T, std::regex(R"(^//\s*\d+:\d+ (read|write) of )")))
        Out.Warnings.push_back(fmt::format(".cu line {}: a site marker without a space: {}", LineNo, T));
      continue;
    }
    if (Pending.empty() || T.empty())
      continue;
    if (startsWith(T, "for (") || startsWith(T, "for(") || startsWith(T, "#pragma"))
      continue; // a staging loop's header, or an unroll pragma, between the markers and the statement
    Statement S;
    S.Kernel = Kernel;
    S.FirstLine = LineNo;
    S.LastLine = LineNo;
    for (std::size_t J = I; J < Lines.size() && J < I + 40; ++J) {
      const std::string U = trim(Lines[J]);
      if (!U.empty() && U.back() == ';') {
        S.LastLine = static_cast<int>(J) + 1;
        break;
      }
    }
    S.Markers = std::move(Pending);
    Pending.clear();
    I = static_cast<std::size_t>(S.LastLine) - 1;
    Out.Statements.push_back(std::move(S));
  }
  return Out;
}

std::string trimCu(std::string_view CuText) {
  std::string Out;
  bool In = false;
  for (const auto &L : splitLines(CuText)) {
    if (L.find("__global__") != std::string::npos)
      In = true;
    if (In)
      Out += L;
    if (L == "}")
      In = false;
    Out += '\n';
  }
  if (!Out.empty())
    Out.pop_back(); // splitLines gave one line more than there are newlines
  return Out;
}

std::vector<KernelPrediction> readReport(const nlohmann::json &Report) {
  if (!Report.is_object() || !Report.contains("kernels") || !Report["kernels"].is_array())
    throw std::runtime_error("the report has no \"kernels\" array");
  static const std::regex WarpRe(R"(\bw:\s*(\d+))");
  std::vector<KernelPrediction> Out;
  for (const auto &K : Report["kernels"]) {
    KernelPrediction P;
    P.Name = K.value("kernel", "");
    if (P.Name.empty())
      throw std::runtime_error("a kernel of the report has no name");
    P.ProgramKernel = K.value("program_kernel", P.Name);
    std::smatch M;
    const std::string Machine = K.value("time_machine", "");
    if (std::regex_search(Machine, M, WarpRe))
      P.ModelWarp = std::stoi(M[1]);
    for (const auto &S : K.value("sites", nlohmann::json::array())) {
      PredictedSite Site;
      Site.Location = S.value("location", "");
      Site.Array = S.value("array", "");
      Site.Access = S.value("access", "");
      const std::string Declared = S.value("space", "");
      Site.Space = S.contains("device_space") && S["device_space"].is_string() ? S["device_space"].get<std::string>()
                                                                               : Declared;
      Site.Layout = S.value("layout", "");
      Site.AddedByCodegen = S.value("added_by_codegen", false);
      Site.DataDependent = S.value("data_dependent", false);
      Site.WarpExecutions = S.value("warp_executions", 0.0);
      // The key: "file.bw:14:5" -> "14:5".
      Site.Key = Site.Location;
      if (!Site.AddedByCodegen) {
        const auto C2 = Site.Location.rfind(':');
        const auto C1 = C2 == std::string::npos || C2 == 0 ? std::string::npos : Site.Location.rfind(':', C2 - 1);
        if (C1 != std::string::npos)
          Site.Key = Site.Location.substr(C1 + 1);
      }
      // A shared array kept in global memory has a shared prediction only: none for where it goes.
      const bool Moved = Declared != Site.Space;
      const char *CostKey = Site.Space == "shared" ? "sm90_wavefronts" : "sm90_sectors";
      if (!Moved && S.contains(CostKey) && S[CostKey].is_object()) {
        const auto &C = S[CostKey];
        Site.HasPrediction = true;
        Site.Min = C.value("min", 0.0);
        Site.Max = C.value("max", 0.0);
        Site.Mean = C.value("mean", 0.0);
      }
      P.Sites.push_back(std::move(Site));
    }
    Out.push_back(std::move(P));
  }
  return Out;
}

double GroupResult::predictedPerRequest() const {
  return PredictedExecutions > 0 ? PredictedTotal / PredictedExecutions : NAN;
}
double GroupResult::measuredPerRequest() const {
  return Measured && MeasuredExecutions > 0 ? MeasuredTotal / MeasuredExecutions : NAN;
}

int KernelResult::exactSites() const {
  int N = 0;
  for (const auto &G : Groups)
    if (G.V != Verdict::Unpredicted)
      for (const auto &S : G.Sites)
        N += S.exact();
  return N;
}
int KernelResult::exactSitesMatched() const {
  int N = 0;
  for (const auto &G : Groups)
    if (G.V == Verdict::Match)
      for (const auto &S : G.Sites)
        N += S.exact();
  return N;
}
int KernelResult::exactSitesFailed() const {
  int N = 0;
  for (const auto &G : Groups)
    if (G.V == Verdict::Mismatch || G.V == Verdict::NotFound || G.V == Verdict::NotMeasured)
      for (const auto &S : G.Sites)
        N += S.exact();
  return N;
}
int KernelResult::removedSites() const {
  int N = 0;
  for (const auto &G : Groups)
    if (G.V == Verdict::RemovedByNvcc)
      N += static_cast<int>(G.Sites.size());
  return N;
}

namespace {

Space spaceOf(const std::string &S) {
  if (S == "shared")
    return Space::Shared;
  if (S == "global")
    return Space::Global;
  return Space::Other;
}
Op opOf(const std::string &Access) {
  return Access == "write"    ? Op::Store
         : Access == "read"   ? Op::Load
         : Access == "atomic" ? Op::Atomic
                              : Op::Other;
}

/// Judges a group that has sites.
void judge(GroupResult &G, int ModelWarp, const std::string &Stray) {
  G.Exact = !G.Sites.empty();
  G.Uniform = !G.Sites.empty();
  bool AllReads = true, AllPredicted = true, UnpredictedByData = false;
  for (const auto &S : G.Sites) {
    UnpredictedByData = UnpredictedByData || (!S.HasPrediction && S.DataDependent);
    G.Exact = G.Exact && S.exact();
    G.Uniform = G.Uniform && S.uniform();
    AllReads = AllReads && S.Access == "read";
    AllPredicted = AllPredicted && S.HasPrediction;
    G.PredictedExecutions += S.WarpExecutions;
    if (S.HasPrediction)
      G.PredictedTotal += S.Mean * S.WarpExecutions;
  }
  if (!AllPredicted)
    G.PredictedTotal = NAN;
  std::vector<std::string> Notes;
  if (!G.Measured) {
    G.V = Verdict::NotMeasured;
    G.Note = "no source counters for this kernel";
    return;
  }
  if (G.MeasuredInstructions == 0) {
    if (!Stray.empty()) {
      // Instructions of this space and operation sit outside every marked statement: the site's may be
      // among them (attributed to a helper's line), so nothing can be said to be removed.
      G.V = G.Exact ? Verdict::Mismatch : Verdict::NotExact;
      G.Note = "no SASS instruction on the statement's lines, and " + Stray;
    } else if (AllReads) {
      G.V = Verdict::RemovedByNvcc;
      G.Note = "no SASS instruction for the load, on its lines or elsewhere in the kernel: nvcc removed it "
               "(a load whose value is unused)";
    } else {
      G.V = G.Exact ? Verdict::Mismatch : Verdict::NotExact;
      G.Note = "no SASS instruction on the statement's lines";
    }
    return;
  }
  // Totals are what the model predicts exactly (every warp execution costed); per request they agree
  // too where the instruction counts agree. A model whose warps are not the hardware's 32 lanes
  // (dmm(w: 4)) predicts per warp of its own width: there only the per-request figures compare.
  bool Agrees;
  std::string How;
  if (ModelWarp == 32) {
    Agrees = !std::isnan(G.PredictedTotal) && near(G.MeasuredTotal, G.PredictedTotal);
    How = "totals compared";
  } else {
    Agrees = !std::isnan(G.PredictedTotal) && near(G.measuredPerRequest(), G.predictedPerRequest());
    How = fmt::format("compared per request: the model's warps have {} lanes, the GPU's 32", ModelWarp);
  }
  if (!near(G.MeasuredExecutions, G.PredictedExecutions)) {
    if (ModelWarp == 32 && G.MeasuredExecutions > G.PredictedExecutions && Agrees)
      Notes.push_back(fmt::format("{} more instructions executed than predicted warp executions, totals equal: "
                                  "executions with every lane predicated off (no request, no cost)",
                                  num(G.MeasuredExecutions - G.PredictedExecutions)));
    else if (ModelWarp == 32)
      Notes.push_back(fmt::format("executions differ: {} predicted, {} measured", num(G.PredictedExecutions),
                                  num(G.MeasuredExecutions)));
  }
  if (!AllPredicted)
    Notes.insert(Notes.begin(), UnpredictedByData
                                    ? "an index that depends on data: the model bounds it but predicts no exact "
                                      "figure (the measured one is what this input's data did)"
                                    : "no sm_90 prediction for where the accesses go (a shared array kept in global "
                                      "memory)");
  else if (!G.Exact)
    Notes.insert(Notes.begin(), fmt::format("data-dependent ({})", How));
  else if (ModelWarp != 32)
    Notes.insert(Notes.begin(), How);
  G.V = !G.Exact ? Verdict::NotExact : Agrees ? Verdict::Match : Verdict::Mismatch;
  for (const auto &N : Notes)
    G.Note += (G.Note.empty() ? "" : "; ") + N;
}

} // namespace

KernelResult matchKernel(const KernelPrediction &K, const CuMarkers &Cu, const FunctionSource *Measured) {
  KernelResult R;
  R.Name = K.Name;
  R.ProgramKernel = K.ProgramKernel;
  R.Profiled = Measured != nullptr;
  std::vector<const Statement *> Stmts;
  for (const auto &S : Cu.Statements)
    if (S.Kernel == K.Name)
      Stmts.push_back(&S);
  if (std::find(Cu.Kernels.begin(), Cu.Kernels.end(), K.Name) == Cu.Kernels.end())
    R.Notes.push_back(fmt::format("no __global__ function '{}' in the .cu", K.Name));

  // Markers -> sites.
  std::vector<bool> Used(K.Sites.size(), false);
  std::vector<std::vector<std::size_t>> SitesOf(Stmts.size());
  for (std::size_t I = 0; I < Stmts.size(); ++I)
    for (const Marker &M : Stmts[I]->Markers) {
      bool Found = false;
      for (std::size_t J = 0; J < K.Sites.size(); ++J) {
        const PredictedSite &S = K.Sites[J];
        if (Used[J] || S.Array != M.Array)
          continue;
        bool Hit = false;
        if (M.K == Marker::Kind::Site)
          Hit = !S.AddedByCodegen && S.Key == fmt::format("{}:{}", M.BwLine, M.BwCol) && S.Access == M.Access;
        else
          Hit = S.AddedByCodegen && S.Key == (M.K == Marker::Kind::StagingIn ? "staging-in" : "staging-out");
        if (Hit) {
          Used[J] = true;
          SitesOf[I].push_back(J);
          Found = true;
          if (M.K == Marker::Kind::Site)
            break; // one site per marker; a staging marker names both of its sides
        }
      }
      if (!Found)
        R.Notes.push_back(fmt::format(".cu line {}: the marker of '{}' names no site of the report", M.CuLine, M.Array));
    }

  // Measured instructions -> statements, by their CUDA lines; an instruction listed under several lines
  // goes to the first of them that belongs to a statement.
  auto StatementAt = [&](int Line) -> int {
    for (std::size_t I = 0; I < Stmts.size(); ++I)
      if (Line >= Stmts[I]->FirstLine && Line <= Stmts[I]->LastLine)
        return static_cast<int>(I);
    return -1;
  };
  struct Acc {
    int Instructions = 0;
    double Executed = 0, Total = 0, Tag = 0;
    std::vector<std::string> Sass;
    int LineFirst = 0, LineLast = 0;
  };
  std::map<std::tuple<int, Space, Op>, Acc> InStmt;  // (statement, space, op)
  std::map<std::tuple<int, Space, Op>, Acc> Outside; // (.cu line, space, op)
  if (Measured)
    for (const auto &M : Measured->Memory) {
      int Stmt = -1, Line = M.Lines.empty() ? 0 : M.Lines.front();
      for (int L : M.Lines)
        if ((Stmt = StatementAt(L)) >= 0) {
          Line = L;
          break;
        }
      Acc &A = Stmt >= 0 ? InStmt[{Stmt, M.AddressSpace, M.Operation}] : Outside[{Line, M.AddressSpace, M.Operation}];
      ++A.Instructions;
      A.Executed += M.Executed;
      A.Total += M.AddressSpace == Space::Shared ? M.SharedWavefronts : M.GlobalSectors;
      A.Tag += M.TagRequests;
      A.Sass.push_back(M.Sass);
      A.LineFirst = A.LineFirst == 0 ? Line : std::min(A.LineFirst, Line);
      A.LineLast = std::max(A.LineLast, Line);
      if (M.Lines.size() > 1 && Stmt >= 0)
        R.Notes.push_back(fmt::format("{} at {} is listed under .cu lines {}; counted on line {}", M.Sass, M.Address,
                                      fmt::join(M.Lines, ", "), Line));
    }
  auto Fill = [](GroupResult &G, const Acc &A) {
    G.MeasuredInstructions = A.Instructions;
    G.MeasuredExecutions = A.Executed;
    G.MeasuredTotal = A.Total;
    G.MeasuredTagRequests = A.Tag;
    G.Sass = A.Sass;
  };

  // One group per (statement, space, op) with sites or instructions.
  for (std::size_t I = 0; I < Stmts.size(); ++I) {
    std::vector<std::pair<Space, Op>> Keys;
    for (std::size_t J : SitesOf[I])
      Keys.emplace_back(spaceOf(K.Sites[J].Space), opOf(K.Sites[J].Access));
    for (const auto &[Key, A] : InStmt)
      if (std::get<0>(Key) == static_cast<int>(I))
        Keys.emplace_back(std::get<1>(Key), std::get<2>(Key));
    std::sort(Keys.begin(), Keys.end());
    Keys.erase(std::unique(Keys.begin(), Keys.end()), Keys.end());
    for (const auto &[Sp, O] : Keys) {
      GroupResult G;
      G.Kernel = K.Name;
      G.FirstLine = Stmts[I]->FirstLine;
      G.LastLine = Stmts[I]->LastLine;
      G.AddressSpace = Sp;
      G.Operation = O;
      for (std::size_t J : SitesOf[I])
        if (spaceOf(K.Sites[J].Space) == Sp && opOf(K.Sites[J].Access) == O)
          G.Sites.push_back(K.Sites[J]);
      G.Measured = Measured != nullptr;
      if (auto It = InStmt.find({static_cast<int>(I), Sp, O}); It != InStmt.end())
        Fill(G, It->second);
      if (G.Sites.empty()) {
        G.V = Verdict::Unpredicted;
        G.Note = Sp == Space::Local ? "local memory (a register array the compiler placed in local memory); not modeled"
                                    : "no site of the report predicts these instructions (code generation's own accesses)";
      } else {
        std::string Stray;
        for (const auto &[OKey, OA] : Outside)
          if (std::get<1>(OKey) == Sp && std::get<2>(OKey) == O)
            Stray += fmt::format("{}{} on .cu line {}", Stray.empty() ? "" : ", ", OA.Instructions, std::get<0>(OKey));
        if (!Stray.empty())
          Stray = fmt::format("{} {} instruction(s) outside every marked statement: {}", spaceName(Sp), opName(O), Stray);
        judge(G, K.ModelWarp, Stray);
      }
      R.Groups.push_back(std::move(G));
    }
  }
  // Memory instructions outside every marked statement (helpers, code that codegen adds unmarked).
  for (const auto &[Key, A] : Outside) {
    GroupResult G;
    G.Kernel = K.Name;
    G.FirstLine = A.LineFirst;
    G.LastLine = A.LineLast;
    G.AddressSpace = std::get<1>(Key);
    G.Operation = std::get<2>(Key);
    G.Measured = true;
    Fill(G, A);
    G.V = Verdict::Unpredicted;
    const auto T = Measured->LineText.find(std::get<0>(Key));
    G.Note = fmt::format("outside every marked statement: .cu line {}{}", std::get<0>(Key),
                         T == Measured->LineText.end() ? "" : " `" + T->second.substr(0, 80) + "`");
    R.Groups.push_back(std::move(G));
  }
  // Report sites no marker names.
  for (std::size_t J = 0; J < K.Sites.size(); ++J)
    if (!Used[J]) {
      GroupResult G;
      G.Kernel = K.Name;
      G.AddressSpace = spaceOf(K.Sites[J].Space);
      G.Operation = opOf(K.Sites[J].Access);
      G.Sites.push_back(K.Sites[J]);
      G.Exact = K.Sites[J].exact();
      G.Uniform = K.Sites[J].uniform();
      G.PredictedExecutions = K.Sites[J].WarpExecutions;
      G.PredictedTotal = K.Sites[J].Mean * K.Sites[J].WarpExecutions;
      G.V = Verdict::NotFound;
      G.Note = "no marker names this site in the .cu";
      R.Groups.push_back(std::move(G));
    }
  return R;
}

} // namespace bankwise::verify
