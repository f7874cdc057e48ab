#include "ir/Printer.h"
#include "ir/Sites.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace bankwise::ir {

namespace {

std::string quote(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    switch (C) {
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\t':
      Out += "\\t";
      break;
    default:
      Out += C;
    }
  }
  return Out + "\"";
}

struct ExprPrinter {
  std::string Out;

  void print(const Expr &E) {
    std::visit([&](const auto &N) { printNode(N); }, E.Node);
  }

  void printList(const std::vector<Expr> &Es) {
    for (std::size_t I = 0; I < Es.size(); ++I) {
      if (I)
        Out += ", ";
      print(Es[I]);
    }
  }

  void printNode(const IntLit &N) { Out += std::to_string(N.Value); }
  void printNode(const FloatLit &N) { Out += floatSpelling(N.Value); }

  /// `c ? a : b`: the loosest expression, right-associative; a condition
  /// that is itself a '?:' gets parentheses.
  void printNode(const Select &N) {
    const bool Paren = N.Cond->is<Select>();
    Out += Paren ? "(" : "";
    print(*N.Cond);
    Out += Paren ? ") ? " : " ? ";
    print(*N.Then);
    Out += " : ";
    print(*N.Else);
  }
  void printNode(const VarRef &N) { Out += N.Name; }
  void printNode(const BuiltinRef &N) { Out += spelling(N.Which); }

  void printNode(const Unary &N) {
    Out += spelling(N.Op);
    // `-(5)` stays a negation of a literal: the parser reads `-5` as the
    // literal -5. Nested operators get parentheses too.
    const Expr &Operand = *N.Operand;
    const bool Paren =
        Operand.is<Binary>() || Operand.is<Unary>() || Operand.is<Select>() ||
        (Operand.is<IntLit>() &&
         (N.Op == UnaryOp::Neg || Operand.as<IntLit>()->Value < 0));
    if (Paren)
      Out += '(';
    print(Operand);
    if (Paren)
      Out += ')';
  }

  void printOperand(const Expr &E, int ParentPrec, bool IsRight) {
    const Binary *B = E.as<Binary>();
    const bool Paren = E.is<Select>() ||
                       (B && (precedence(B->Op) < ParentPrec ||
                              (IsRight && precedence(B->Op) == ParentPrec)));
    if (Paren)
      Out += '(';
    print(E);
    if (Paren)
      Out += ')';
  }

  void printNode(const Binary &N) {
    const int Prec = precedence(N.Op);
    printOperand(*N.Lhs, Prec, false);
    Out += fmt::format(" {} ", spelling(N.Op));
    printOperand(*N.Rhs, Prec, true);
  }

  void printNode(const Call &N) {
    Out += spelling(N.Fn);
    Out += '(';
    printList(N.Args);
    Out += ')';
  }

  void printNode(const ArrayRead &N) {
    Out += N.Array;
    for (const Expr &I : N.Indices) {
      Out += '[';
      print(I);
      Out += ']';
    }
  }

  /// `atomic_add(h[k], v)`, `atomic_cas(h[k], c, v)`.
  void printNode(const Atomic &N) {
    Out += spelling(N.Op);
    Out += '(';
    printNode(N.Target);
    for (const Expr &A : N.Args) {
      Out += ", ";
      print(A);
    }
    Out += ')';
  }

  /// `shfl_xor(v, 16)`.
  void printNode(const Shuffle &N) {
    Out += spelling(N.Op);
    Out += '(';
    print(*N.Value);
    Out += ", ";
    print(*N.Lane);
    Out += ')';
  }

  void printNode(const PermApply &N) {
    Out += N.Inverse ? fmt::format("inverse({})", N.Perm) : N.Perm;
    Out += '(';
    print(*N.Arg);
    Out += ')';
  }
};

std::string indent(int Level) { return std::string(2 * Level, ' '); }

/// `  # sites #1 out, #2 a` for S's own accesses, when asked for and S has any.
std::string siteComment(const Stmt &S, const PrintOptions &Opts) {
  if (!Opts.SiteIds)
    return {};
  std::string Out;
  for (const ArrayRead *R : ownSites(S))
    Out += fmt::format("{}#{} {}", Out.empty() ? "  # sites " : ", ", R->Site, R->Array);
  return Out;
}

void printBlock(std::string &Out, const Block &B, int Level, const PrintOptions &Opts,
                const std::string &HeaderComment = {}) {
  Out += "{" + HeaderComment + "\n";
  for (const Stmt &S : B)
    Out += print(S, Level + 1, Opts);
  Out += indent(Level) + "}";
}

std::string printLayout(const Layout &L) {
  switch (L.Kind) {
  case LayoutKind::Pad:
    return fmt::format("pad({})", print(*L.Arg));
  case LayoutKind::Rap:
    return fmt::format("rap(seed: {})", print(*L.Arg));
  default:
    return std::string(spelling(L.Kind));
  }
}

void printIf(std::string &Out, const Stmt &S, int Level, const PrintOptions &Opts) {
  const If &N = *S.as<If>();
  Out += "if " + print(N.Cond) + " ";
  printBlock(Out, N.Then, Level, Opts, siteComment(S, Opts));
  if (N.Else.empty())
    return;
  Out += " else ";
  if (N.Else.size() == 1 && N.Else.front().is<If>()) {
    printIf(Out, N.Else.front(), Level, Opts);
    return;
  }
  printBlock(Out, N.Else, Level, Opts);
}

std::string printPermutation(const Permutation &P) {
  std::string Out = "permutation " + P.Name + " = ";
  ExprPrinter EP;
  switch (P.Kind) {
  case PermKind::List:
    // A list a pass built (schedule colored's P) has values and no
    // expressions.
    if (P.Args.empty() && !P.ArgValues.empty())
      return Out + fmt::format("[{}]", fmt::join(P.ArgValues, ", "));
    EP.Out = "[";
    EP.printList(P.Args);
    return Out + EP.Out + "]";
  case PermKind::File:
    return Out + "file(" + quote(P.Path) + ")";
  case PermKind::Random:
    return Out + fmt::format("random({}, seed: {})", print(P.Args[0]),
                             print(P.Args[1]));
  case PermKind::ScheduleSrc:
  case PermKind::ScheduleDst:
    return Out + fmt::format("{}({}, w: {})", spelling(P.Kind), P.Base,
                             print(P.Args[0]));
  case PermKind::HmmSrc:
  case PermKind::HmmDst:
    return Out + fmt::format("{}({}, pass: {}{})", spelling(P.Kind),
                             P.BaseInverse ? "inverse(" + P.Base + ")" : P.Base,
                             print(P.Args[0]),
                             P.Args.size() > 1 ? ", bytes: " + print(P.Args[1]) : "");
  default:
    EP.printList(P.Args);
    return Out + fmt::format("{}({})", spelling(P.Kind), EP.Out);
  }
}

std::string printGeometry(const Geometry &G) {
  if (G.IsThreads)
    return "threads " + print(G.Block.front());
  auto Tuple = [](const std::vector<Expr> &Es) {
    ExprPrinter EP;
    EP.printList(Es);
    return "(" + EP.Out + ")";
  };
  return "grid " + Tuple(G.Grid) + " block " + Tuple(G.Block);
}

} // namespace

std::string print(const Expr &E) {
  ExprPrinter P;
  P.print(E);
  return std::move(P.Out);
}

std::string printArrayType(const Array &A) {
  std::string Out = spelling(A.Elem);
  for (const Expr &D : A.Dims)
    Out += "[" + print(D) + "]";
  // Shared arrays default to auto, the others to raw: print the rest.
  const LayoutKind Default =
      A.Space == MemSpace::Shared ? LayoutKind::Auto : LayoutKind::Raw;
  if (A.Lay.Kind != Default)
    Out += " layout " + printLayout(A.Lay);
  if (A.Holds)
    Out += A.Holds->Inverse ? fmt::format(" holds inverse({})", A.Holds->Perm)
                            : " holds " + A.Holds->Perm;
  return Out;
}

std::string print(const Stmt &S, int Level) { return print(S, Level, PrintOptions{}); }

std::string print(const Stmt &S, int Level, const PrintOptions &Opts) {
  std::string Out = indent(Level);
  if (const auto *N = S.as<Assign>()) {
    Expr Target;
    if (const auto *V = std::get_if<VarRef>(&N->Target))
      Target = Expr{*V, {}};
    else
      Target = Expr{std::get<ArrayRead>(N->Target), {}};
    Out += print(Target);
    // `t op= v` when the value is `t op v` (what the parser builds from it).
    const auto *B = N->Value.as<Binary>();
    if (N->Compound && B && B->Op == *N->Compound && *B->Lhs == Target) {
      Out += fmt::format(" {}= {}", spelling(B->Op), print(*B->Rhs));
    } else {
      Out += " = " + print(N->Value);
    }
  } else if (const auto *N = S.as<Let>()) {
    Out += "let " + N->Name;
    if (N->Type)
      Out += ": " + spelling(*N->Type);
    Out += " = " + print(N->Init);
  } else if (const auto *N = S.as<While>()) {
    Out += "while " + print(N->Cond) + " ";
    printBlock(Out, N->Body, Level, Opts, siteComment(S, Opts));
    return Out + "\n";
  } else if (const auto *N = S.as<For>()) {
    Out += "for " + N->Var + " in " + print(N->Begin) + ".." + print(N->End);
    if (N->Step)
      Out += " step " + print(*N->Step);
    Out += " ";
    printBlock(Out, N->Body, Level, Opts, siteComment(S, Opts));
    return Out + "\n";
  } else if (S.is<If>()) {
    printIf(Out, S, Level, Opts);
    return Out + "\n";
  } else if (S.is<Sync>()) {
    Out += "sync";
  } else if (const auto *N = S.as<ExprStmt>()) {
    // An atomic whose old value the lowered CUDA uses: a let keeps it so.
    if (const auto *A = N->Value.as<Atomic>(); A && A->OldValueUsed)
      Out += fmt::format("let old_{}_{} = ", N->Value.Loc.Line, N->Value.Loc.Col);
    Out += print(N->Value);
  } else if (const auto *N = S.as<ArrayDecl>(); N && N->Decl.ViewOf) {
    Out += fmt::format("view {} = {} as {}", N->Decl.Name, *N->Decl.ViewOf, spelling(N->Decl.Elem));
  } else if (const auto *N = S.as<ArrayDecl>()) {
    Out += fmt::format("{} {}: {}", spelling(N->Decl.Space), N->Decl.Name,
                       printArrayType(N->Decl));
  }
  return Out + siteComment(S, Opts) + "\n";
}

std::string print(const Program &P) { return print(P, PrintOptions{}); }

std::string print(const Program &P, const PrintOptions &Opts) {
  std::string Out;
  auto Section = [&]() {
    if (!Out.empty())
      Out += "\n";
  };
  if (P.Mach && P.Mach->Kind == MachineKind::Target)
    Out += "target " + P.Mach->Target + "\n";
  if (!P.Params.empty()) {
    Section();
    for (const Param &Prm : P.Params)
    {
      Out += "param " + Prm.Name;
      if (Prm.Init)
        Out += " = " + print(*Prm.Init);
      if (Prm.Where)
        Out += " where " + print(*Prm.Where);
      // A value given by -D or bound to a runtime size (bind-sizes) shows
      // as a comment: the text still parses to the same program under the
      // same -D.
      if (Prm.Overridden && !Prm.Runtime)
        Out += " # = " + std::to_string(Prm.Value);
      Out += "\n";
    }
  }
  if (P.Mach && P.Mach->Kind != MachineKind::Target) {
    Section();
    std::string Args;
    for (const MachineArg &A : P.Mach->Args)
      Args += (Args.empty() ? "" : ", ") + A.Name + ": " + print(A.Value);
    const char *Name = P.Mach->Kind == MachineKind::Dmm   ? "dmm"
                       : P.Mach->Kind == MachineKind::Umm ? "umm"
                                                          : "hmm";
    Out += fmt::format("machine {}({})\n", Name, Args);
  }
  if (!P.Perms.empty()) {
    Section();
    for (const Permutation &Perm : P.Perms)
      Out += printPermutation(Perm) + "\n";
  }
  if (!P.Arrays.empty()) {
    Section();
    for (const Array &A : P.Arrays)
      Out += fmt::format("{} {}: {}\n", spelling(A.Space), A.Name,
                         printArrayType(A));
  }
  for (const Kernel &K : P.Kernels) {
    Section();
    std::string Params;
    for (const Array &A : K.Params)
      Params += fmt::format("{}{}: {} {}", Params.empty() ? "" : ", ", A.Name,
                            spelling(A.Space), printArrayType(A));
    for (const SizeMultiple &R : K.Requires)
      Out += fmt::format("// {} runs only where {} % {} == 0: {}\n", K.Name, R.Param, R.Multiple, R.Why);
    Out +=
        fmt::format("kernel {}({}) {}{} ", K.Name, Params, printGeometry(K.Geo),
                    K.Schedule == KernelSchedule::None ? std::string() : " schedule " + std::string(spelling(K.Schedule)));
    printBlock(Out, K.Body, 0, Opts);
    Out += "\n";
  }
  if (!P.Launches.empty()) {
    Section();
    for (const Launch &L : P.Launches)
      Out += fmt::format("launch {} = {}\n", L.Name, fmt::join(L.Kernels, ", "));
  }
  return Out;
}

} // namespace bankwise::ir
