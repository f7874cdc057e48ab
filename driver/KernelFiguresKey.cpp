#include "driver/KernelFiguresKey.h"

#include "ir/Printer.h"
#include "ir/Walk.h"

#include <fmt/format.h>

namespace bankwise::driver {

/// Every source location the IR of Block B holds, in order.
static void appendLocations(const ir::Block &B, std::string &Out) {
  const auto Loc = [&](const SourceLoc &L) { Out += fmt::format("|{}:{}:{}", L.File, L.Line, L.Col); };
  for (const ir::Stmt &S : B) {
    Loc(S.Loc);
    if (const auto *F = S.as<ir::For>())
      appendLocations(F->Body, Out);
    else if (const auto *I = S.as<ir::If>()) {
      appendLocations(I->Then, Out);
      Out += "|else";
      appendLocations(I->Else, Out);
    } else if (const auto *W = S.as<ir::While>())
      appendLocations(W->Body, Out);
  }
  ir::forEachStmtExpr(B, [&](const ir::Expr &Root) {
    ir::forEachSubexpr(Root, [&](const ir::Expr &E) { Loc(E.Loc); });
  });
}

/// What lintSites reads of a lowered kernel, its name aside: the program
/// One (its params and this kernel alone) as printed, every location in the
/// kernel's IR, and the lowering's lane-mask and source-name facts. Kernels
/// with one key (instantiations of a template whose parameter the IR does
/// not see, as mergeSort's sortDir in a data comparison) get the same sites.
std::string figuresKey(const ir::Program &One, const frontend::LoweredKernel &LK) {
  ir::Program P = One;
  P.Kernels.front().Name = "bankwise_kernel";
  std::string Key = ir::print(P);
  appendLocations(P.Kernels.front().Body, Key);
  for (const SourceLoc &L : LK.UncertainMask)
    Key += fmt::format("|mask {}:{}:{}", L.File, L.Line, L.Col);
  for (const auto &[Ir, Source] : LK.SourceNames)
    Key += fmt::format("|name {}={}", Ir, Source);
  return Key;
}

} // namespace bankwise::driver
