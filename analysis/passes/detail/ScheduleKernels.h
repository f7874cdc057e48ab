// The kernels and names the schedule-colored pass writes into a program
// (ColoredSchedule.cpp): seed 001's pass kernels, the one tiled pass of
// `schedule bits`, and fresh names for both. Internal to analysis/passes.
#pragma once

#include "analysis/models/Permutation.h"
#include "analysis/schedule/HmmSchedule.h"
#include "ir/Eval.h"
#include "ir/Program.h"

#include <set>
#include <string>

namespace bankwise::schedule_kernels {

/// Builders of the IR the global lowering writes, every node located at Loc.
struct IrBuilder {
  SourceLoc Loc;
  ir::Expr num(std::int64_t V) const { return ir::makeInt(V, Loc); }
  ir::Expr var(const std::string &Name, ir::VarKind K) const { return ir::makeVar(Name, K, Loc); }
  ir::Expr builtin(ir::Builtin B) const { return ir::Expr{ir::BuiltinRef{B}, ir::NodeLoc(Loc)}; }
  ir::Expr bin(ir::BinaryOp Op, ir::Expr L, ir::Expr R) const {
    return ir::makeBinary(Op, std::move(L), std::move(R), Loc);
  }
  ir::ArrayRead element(const std::string &Array, ir::Expr Index) const {
    ir::ArrayRead R;
    R.Array = Array;
    R.Indices.push_back(std::move(Index));
    return R;
  }
  ir::Expr read(const std::string &Array, ir::Expr Index) const {
    return ir::Expr{element(Array, std::move(Index)), ir::NodeLoc(Loc)};
  }
  ir::Stmt stmt(ir::Stmt::Kind K) const { return ir::Stmt{std::move(K), ir::NodeLoc(Loc)}; }
  ir::Stmt assign(ir::ArrayRead Target, ir::Expr Value) const {
    return stmt(ir::Assign{std::move(Target), std::move(Value)});
  }
  ir::Array array(const std::string &Name, ir::MemSpace Space, ir::ElemType Elem, std::int64_t N) const {
    ir::Array A;
    A.Name = Name;
    A.Space = Space;
    A.Elem = Elem;
    A.Dims = {num(N)};
    A.Shape = {N};
    A.Loc = ir::NodeLoc(Loc);
    return A;
  }
};

/// The names the lowering of kernel K adds, none already taken in Prog.
struct HmmNames {
  std::string Kernel[3], SPerm[3], DPerm[3], S[3], D[3], Buf, V, K, J;
};

/// Every name Prog declares (params, permutations, arrays, kernels and
/// their arrays, launches); with Within, of the kernels' arrays only
/// Within's (a name local to a new body of Within).
std::set<std::string> takenNames(const ir::Program &Prog, const ir::Kernel *Within = nullptr);

/// Fresh names for the pass kernels, their tables and locals of kernel K.
HmmNames hmmNames(const ir::Program &Prog, const ir::Kernel &K);

/// Why P is not a BPC permutation, for the error: the first entry that
/// breaks the rule, or the first bit that does not move to one bit.
std::string whyNotBitPermutation(const Permutation &P);

/// `schedule bits`: K replaced, under its name, by one tiled pass that
/// moves P's 32 x 32 tiles through shared memory (ScheduleKernels.cpp).
ir::Kernel bitPermutationKernel(const ir::Program &Prog, const ir::Kernel &K, const BitPermutation &P,
                                const ir::Array &Src, const ir::Array &Dst, const SourceLoc &Loc);

/// Seed 001's pass Pass of the schedule Sched as a kernel (ScheduleKernels.cpp).
ir::Kernel hmmPassKernel(const ir::Kernel &K, const HmmSchedule &Sched, int Pass, const ir::Array &Src,
                         const ir::Array &Dst, const HmmNames &Nm, const SourceLoc &ReadLoc,
                         const SourceLoc &Loc);

} // namespace bankwise::schedule_kernels
