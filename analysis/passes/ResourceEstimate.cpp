#include "analysis/passes/ResourceEstimate.h"

#include "analysis/passes/KernelAnalysis.h"
#include "ir/Bind.h"
#include "ir/Walk.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

namespace bankwise {

namespace {

std::string count(double N) {
  const double L = std::log2(N);
  if (N >= 1024 && std::abs(L - std::round(L)) < 1e-9)
    return fmt::format("2^{}", static_cast<int>(std::round(L)));
  return fmt::format("{:.0f}", N);
}

std::string bytesText(double B) {
  if (B >= 1024.0 * 1024 * 1024)
    return fmt::format("{:.1f} GiB", B / (1024.0 * 1024 * 1024));
  if (B >= 1024.0 * 1024)
    return fmt::format("{:.1f} MiB", B / (1024.0 * 1024));
  return fmt::format("{:.0f} KiB", B / 1024.0);
}

std::string secondsText(double S) {
  if (S >= 3600)
    return fmt::format("{:.1f} h", S / 3600);
  if (S >= 60)
    return fmt::format("{:.1f} min", S / 60);
  return fmt::format("{:.1f} s", S);
}

class Estimator {
public:
  Estimator(const ir::Program &P, const ResourceRates &R) : P(P), R(R), Env(ir::paramValues(P)) {}

  ResourceEstimate run() {
    for (const ir::Permutation &Perm : P.Perms)
      permutation(Perm);
    for (const ir::Kernel &K : P.Kernels)
      kernel(K);
    for (const ir::Array &A : P.Arrays)
      if (A.Holds)
        Used.insert({A.Holds->Perm, A.Holds->Inverse});
    // Tables: those a kernel, an array or a schedule reads.
    for (const ir::Permutation &Perm : P.Perms) {
      const double N = entries(Perm);
      const bool Drawn = Perm.Kind == ir::PermKind::Random || Perm.Kind == ir::PermKind::File ||
                         Perm.Kind == ir::PermKind::List;
      for (bool Inverse : {false, true})
        if (Used.count({Perm.Name, Inverse}) && N > 0)
          add(Perm.Loc,
              fmt::format("the table of {}permutation '{}' ({} entries)", Inverse ? "the inverse of " : "",
                          Perm.Name, count(N)),
              N * R.TableBytesPerEntry, Drawn ? N * R.TableSecondsPerEntry : 0);
    }
    return std::move(E);
  }

private:
  const ir::Program &P;
  const ResourceRates &R;
  const ir::ConstEnv Env;
  std::set<std::pair<std::string, bool>> Used;
  ResourceEstimate E;

  void add(const SourceLoc &Loc, std::string What, double Bytes, double Seconds) {
    E.Bytes += Bytes;
    E.Seconds += Seconds;
    E.Items.push_back({Loc, std::move(What), Bytes, Seconds, 0, {}});
  }

  double entries(const ir::Permutation &Perm) const {
    if (Perm.Size)
      return static_cast<double>(*Perm.Size);
    if (Perm.Kind == ir::PermKind::File) { // relative to the .bw, as PermutationTables reads it
      std::filesystem::path Path(Perm.Path);
      if (Path.is_relative() && !Perm.Loc.File.empty())
        Path = std::filesystem::path(Perm.Loc.File).parent_path() / Path;
      std::error_code EC;
      const auto Bytes = std::filesystem::file_size(Path, EC);
      return EC ? 0 : static_cast<double>(Bytes) / 4;
    }
    return 0;
  }

  void permutation(const ir::Permutation &Perm) {
    if (Perm.Base.empty())
      return;
    // A schedule of Base: Base's table, and its edge coloring.
    Used.insert({Perm.Base, Perm.BaseInverse});
    const ir::Permutation *Base = P.findPerm(Perm.Base);
    const double N = Base ? entries(*Base) : 0;
    add(Perm.Loc, fmt::format("the schedule '{}' of '{}' ({} elements)", Perm.Name, Perm.Base, count(N)),
        N * R.ScheduleBytesPerElement, N * R.ScheduleSecondsPerElement);
  }

  /// The trips of `for` F when its bounds are constants; 1 otherwise (a
  /// bound that varies by thread is at most what the block's loops give).
  double trips(const ir::For &F) const {
    DiagnosticEngine Quiet;
    const auto B = ir::evalConstant(F.Begin, Env, Quiet), End = ir::evalConstant(F.End, Env, Quiet);
    std::optional<std::int64_t> S = F.Step ? ir::evalConstant(*F.Step, Env, Quiet) : std::optional<std::int64_t>(1);
    if (!B || !End || !S || *S == 0)
      return 1;
    const double Span = static_cast<double>(*End) - static_cast<double>(*B);
    return std::max(0.0, std::ceil(Span / static_cast<double>(*S)));
  }

  /// True when an index of an access in E reads data or a table: a site the
  /// analysis walks warp by warp. Records the permutations E applies.
  bool walked(const ir::Expr &E) {
    bool Walk = false;
    ir::forEachSubexpr(E, [&](const ir::Expr &X) {
      if (const auto *A = X.as<ir::PermApply>()) {
        Used.insert({A->Perm, A->Inverse});
        if (const ir::Permutation *Perm = P.findPerm(A->Perm); Perm && !ir::hasClosedForm(Perm->Kind))
          Walk = true;
      } else if (const auto *Rd = X.as<ir::ArrayRead>()) {
        for (const ir::Expr &I : Rd->Indices)
          if (ir::anySubexpr(I, [](const ir::Expr &Y) { return Y.is<ir::ArrayRead>(); }))
            Walk = true;
      }
    });
    return Walk;
  }

  void block(const ir::Block &B, double Trips, double Threads, const ir::Kernel &K) {
    for (const ir::Stmt &St : B) {
      std::vector<const ir::Expr *> Exprs;
      if (const auto *L = St.as<ir::Let>())
        Exprs.push_back(&L->Init);
      else if (const auto *A = St.as<ir::Assign>()) {
        Exprs.push_back(&A->Value);
        if (const auto *T = std::get_if<ir::ArrayRead>(&A->Target)) {
          ir::Expr Target{*T, St.Loc};
          if (walked(Target))
            walkSite(St.Loc, K, Threads * Trips);
        }
      } else if (const auto *F = St.as<ir::For>()) {
        Exprs = {&F->Begin, &F->End};
        block(F->Body, Trips * trips(*F), Threads, K);
      } else if (const auto *I = St.as<ir::If>()) {
        Exprs.push_back(&I->Cond);
        block(I->Then, Trips, Threads, K);
        block(I->Else, Trips, Threads, K);
      } else if (const auto *W = St.as<ir::While>()) {
        Exprs.push_back(&W->Cond);
        block(W->Body, Trips, Threads, K);
      }
      for (const ir::Expr *X : Exprs)
        if (walked(*X))
          walkSite(St.Loc, K, Threads * Trips);
    }
  }

  void walkSite(const SourceLoc &Loc, const ir::Kernel &K, double Lanes) {
    add(Loc,
        fmt::format("kernel '{}': a site whose index reads data, walked warp by warp ({} thread trips)", K.Name,
                    count(Lanes)),
        0, Lanes * R.WalkSecondsPerLane);
    E.Items.back().WarpSteps = std::ceil(Lanes / 32);
    E.Items.back().Kernel = K.Name;
  }

  void kernel(const ir::Kernel &K) {
    double Threads = static_cast<double>(K.Geo.threadsPerBlock());
    for (std::int64_t D : K.Geo.GridDim)
      Threads *= static_cast<double>(D);
    if (K.Schedule != ir::KernelSchedule::None) {
      double N = 0;
      for (const ir::Array *A : K.arrays())
        N = std::max(N, static_cast<double>(A->numElements()));
      add(K.Loc, fmt::format("the schedule of kernel '{}' ({} elements)", K.Name, count(N)),
          N * R.ScheduleBytesPerElement, N * R.ScheduleSecondsPerElement);
    }
    for (const ir::Array *A : K.arrays())
      if (A->Holds)
        Used.insert({A->Holds->Perm, A->Holds->Inverse});
    block(K.Body, 1, Threads, K);
  }
};

} // namespace

ResourceEstimate estimateResources(const ir::Program &Prog, const ResourceRates &Rates) {
  return Estimator(Prog, Rates).run();
}

ResourceLimits defaultResourceLimits() {
  ResourceLimits L;
  const long Pages = ::sysconf(_SC_PHYS_PAGES), PageSize = ::sysconf(_SC_PAGE_SIZE);
  if (Pages > 0 && PageSize > 0)
    L.MaxBytes = 0.8 * static_cast<double>(Pages) * static_cast<double>(PageSize);
  L.MaxSeconds = 900;
  L.MaxWarpSteps = static_cast<double>(AnalysisOptions{}.WorkLimit);
  return L;
}

void checkResourceLimits(const ResourceEstimate &E, const ResourceLimits &L) {
  if (L.MaxWarpSteps > 0) {
    std::map<std::string, std::pair<double, const ResourceItem *>> Steps; // per kernel, and its first site
    for (const ResourceItem &I : E.Items)
      if (I.WarpSteps > 0) {
        auto &[N, First] = Steps[I.Kernel];
        N += I.WarpSteps;
        First = First ? First : &I;
      }
    for (const auto &[Kernel, S] : Steps)
      if (S.first > L.MaxWarpSteps)
        throw UserError(S.second->Loc,
                        fmt::format("kernel '{}' needs about {} warp evaluations to analyze (its index here reads "
                                    "data or a table, so each warp is evaluated), more than the analysis limit "
                                    "of {}; reduce its parameters with -D",
                                    Kernel, count(S.first), count(L.MaxWarpSteps)));
  }
  // Past a total: the error at the item that costs the most of it.
  auto Check = [&](double Total, double Limit, double ResourceItem::*Field, std::string (*Text)(double),
                   const char *Of, const char *Flag) {
    if (Limit <= 0 || Total <= Limit || E.Items.empty())
      return;
    const auto It = std::max_element(E.Items.begin(), E.Items.end(),
                                     [&](const ResourceItem &A, const ResourceItem &B) { return A.*Field < B.*Field; });
    throw UserError(It->Loc, fmt::format("these sizes need about {} of {} ({} of it for {}), more than the limit of "
                                         "{}; give smaller sizes, or raise the limit with {}",
                                         Text(Total), Of, Text((*It).*Field), It->What, Text(Limit), Flag));
  };
  Check(E.Bytes, L.MaxBytes, &ResourceItem::Bytes, bytesText, "memory", "--memory-limit GB");
  Check(E.Seconds, L.MaxSeconds, &ResourceItem::Seconds, secondsText, "work", "--time-limit SECONDS");
}

} // namespace bankwise
