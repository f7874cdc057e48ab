// Semantic checks of the .bw front end (internal to dsl/). The parser hands
// over each top-level declaration as soon as it is parsed, so names are
// visible from their declaration on. Sema resolves names (VarRef::Kind),
// evaluates constant parts (shapes, params, geometry, machine and permutation
// arguments), checks them, and appends the declaration to the program.
#pragma once

#include "dsl/Lexer.h"
#include "dsl/Parser.h"

#include <map>
#include <set>

namespace bankwise::dsl {

/// Words that cannot name a declaration: keywords, thread built-ins and
/// built-in functions.
bool isReserved(std::string_view Name);

/// Where an expression begins: a binary node's location is its operator,
/// so descend to its leftmost operand (`a + b` begins at `a`).
SourceLoc startOf(const ir::Expr &E);
/// The geometry words `bdx bdy bdz` (blockDim) and `gdx gdy gdz` (gridDim):
/// {is grid, axis 0-2}; nullopt for other names. Sema replaces each by the
/// kernel's block or grid expression.
std::optional<std::pair<bool, int>> geometryWord(std::string_view Name);
bool isGeometryWord(std::string_view Name);

class Sema {
public:
  Sema(const SourceFile &Src, DiagnosticEngine &Diags,
       const ParamOverrides &Overrides, ir::Program &Out);

  /// Checks and records a `target` or `machine` declaration.
  void actOnMachine(ir::Machine M);
  void actOnParam(ir::Param P);
  void actOnPermutation(ir::Permutation P);
  /// A top-level array declaration.
  void actOnArray(ir::Array A);
  void actOnKernel(ir::Kernel K);
  /// `launch NAME = K1, K2, ...`: kernels declared before it, each in one
  /// launch at most, with nothing else named NAME.
  void actOnLaunch(ir::Launch L);
  /// A function or generic kernel's name (the parser expands both where
  /// they are used): one namespace with params, arrays, kernels and the
  /// rest; false after reporting a clash.
  bool declareFunction(const std::string &Name, const SourceLoc &Loc);
  /// True when Name is declared at the top level so far.
  bool isGlobalName(std::string_view Name) const;
  /// Resolves and evaluates a constant expression (params and literals);
  /// nullopt after reporting.
  std::optional<std::int64_t> evaluateConstant(ir::Expr &E);
  /// End of input: unused -D overrides, a program without kernels.
  /// SawTokens is false for a file with nothing but blanks and comments.
  void finish(bool SawTokens);

private:
  enum class SymKind { Param, Perm, Array, Kernel, Let, Loop, Function };
  struct Symbol {
    SymKind Kind;
    SourceLoc Loc;
    int Rank = 0; // arrays: number of dimensions
    // Arrays: what an atomic on one needs to know.
    ir::ElemType Elem{};
    ir::MemSpace Space = ir::MemSpace::Global;
    bool Holds = false;
    /// A kernel's own array (parameter, body declaration or view), valid
    /// while the kernel is checked; null for top-level ones.
    const ir::Array *Decl = nullptr;
  };
  using Scope = std::map<std::string, Symbol, std::less<>>;

  const SourceFile &Src;
  DiagnosticEngine &Diags;
  const ParamOverrides &Overrides;
  ir::Program &Out;
  Scope Globals;
  std::vector<Scope> Locals; // innermost last; empty outside kernels
  std::map<std::string, std::int64_t, std::less<>> ParamValues;
  std::set<std::string, std::less<>> PoisonedParams; // failed to evaluate
  std::set<std::string, std::less<>> RuntimeParams;  // no value: runtime sizes
  std::set<std::string, std::less<>> UsedOverrides;
  bool SawMachine = false;

  void error(const SourceLoc &L, std::string Msg) const;
  /// True when E (resolved) reads a runtime param, directly or through a
  /// param computed from one.
  bool usesRuntime(const ir::Expr &E) const;
  const Symbol *lookup(std::string_view Name) const;
  /// Declares Name in the innermost scope (or globally); reports reserved
  /// words and redefinitions. False when the name cannot be declared.
  bool declare(const std::string &Name, const SourceLoc &Loc, Symbol Sym);

  /// Resolves names in an expression that must be constant (only params and
  /// literals); false after reporting a problem.
  bool resolveConstant(ir::Expr &E);
  /// Resolves names in a kernel-body expression; false after reporting.
  bool resolveRuntime(ir::Expr &E);
  bool isConstant(const ir::Expr &E) const;
  /// Evaluates a resolved constant expression; nullopt after reporting (or
  /// silently when it depends on a parameter that already failed).
  std::optional<std::int64_t> evalResolved(const ir::Expr &E);
  /// resolveConstant + evalResolved.
  std::optional<std::int64_t> constant(ir::Expr &E);
  /// constant(E) and > 0; What names it in "array dimension must be
  /// positive, got 0".
  std::optional<std::int64_t> positive(ir::Expr &E, std::string_view What);
  /// Reports overflow and division by zero in the constant parts of a
  /// resolved runtime expression.
  void foldCheck(const ir::Expr &E);

  void checkArray(ir::Array &A, bool InKernel);
  void checkGeometry(ir::Kernel &K);
  void checkBlock(ir::Block &B);
  void checkStmt(ir::Stmt &S);
  void checkSharedBytes(const ir::Kernel &K);
  /// Floating-point values where an integer is needed (an index, a bound, a
  /// condition, an operand of % or a bit operator) and floating-point
  /// values stored in integer-typed locals or given to an atomic on an
  /// integer element; errors at the value.
  void checkFloatUses(const ir::Kernel &K);
  /// Resolves an atomic's element and values, and checks the element: a
  /// shared or global array, not one that holds a permutation, of a type
  /// CUDA's atomic takes (SemaCuda.cpp).
  bool resolveAtomic(ir::Atomic &A, const SourceLoc &Loc);
  /// Resolves a shuffle's value and lane; its warps must have 32 lanes (a
  /// memory machine of another width is an error).
  bool resolveShuffle(ir::Shuffle &S, const SourceLoc &Loc);
  /// An atomic stands alone (an expression statement), initializes a let
  /// or is the value assigned to a local: anywhere else (inside an index,
  /// an arm of '?:', an operand) it is an error, since it must run exactly
  /// once where its statement runs. An expression statement must be one.
  void checkAtomicPlacement(const ir::Block &B);
  /// `view V = A as T`: A a shared or global array, raw, of T's scalar with
  /// a constant innermost dimension that T's lanes divide, and T at most 16
  /// bytes; gives V A's space, outer dimensions and the innermost divided,
  /// and declares it (SemaCuda.cpp).
  void checkView(ir::Array &V);
  /// Replaces a geometry word (`bdx`, `gdy`, ...) in E by the current
  /// kernel's block or grid expression; false when E is no such word.
  bool substituteGeometry(ir::Expr &E);
  /// The geometry of the kernel whose body is being checked.
  const ir::Geometry *CurGeo = nullptr;
};

} // namespace bankwise::dsl
