// What CUDA developers reach for beyond plain loads and stores, in the .bw
// parser: atomics (`atomic_add(h[k], 1)`). CUDA's spellings of them
// (`atomicAdd(&h[k], 1)`) are errors that name the DSL's, read as the DSL's
// so that the rest of the file is still checked. The grammar of each
// production is at its declaration in detail/ParserImpl.h.
#include "dsl/detail/ParserImpl.h"

namespace bankwise::dsl::detail {

namespace {

struct AtomicName {
  AtomicOp Op;
  bool Cuda; ///< CUDA's spelling (atomicAdd), an error naming the DSL's
};

/// The atomic Name spells: `atomic_add` ... `atomic_cas`, or CUDA's
/// `atomicAdd` ... `atomicCAS`.
std::optional<AtomicName> atomicNamed(std::string_view Name) {
  static constexpr std::array<std::pair<std::string_view, AtomicOp>, 11> Cuda{{
      {"atomicAdd", AtomicOp::Add},
      {"atomicSub", AtomicOp::Sub},
      {"atomicMin", AtomicOp::Min},
      {"atomicMax", AtomicOp::Max},
      {"atomicAnd", AtomicOp::And},
      {"atomicOr", AtomicOp::Or},
      {"atomicXor", AtomicOp::Xor},
      {"atomicExch", AtomicOp::Exch},
      {"atomicInc", AtomicOp::Inc},
      {"atomicDec", AtomicOp::Dec},
      {"atomicCAS", AtomicOp::Cas},
  }};
  for (const auto &[CudaName, Op] : Cuda) {
    if (Name == CudaName)
      return AtomicName{Op, true};
    if (Name == spelling(Op))
      return AtomicName{Op, false};
  }
  return std::nullopt;
}

} // namespace

bool Parser::atIntrinsicCall() const {
  return at(Tok::Ident) && atomicNamed(tok().Text) && tok(1).Kind == Tok::LParen;
}

std::optional<Expr> Parser::parseIntrinsic(const Token &T) {
  const std::optional<AtomicName> A = atomicNamed(T.Text);
  if (!A)
    return std::nullopt;
  return parseAtomic(T, A->Op, A->Cuda);
}

Expr Parser::parseAtomic(const Token &Name, AtomicOp Op, bool Cuda) {
  consume();
  const std::string Dsl(spelling(Op));
  const std::string Example = Op == AtomicOp::Cas ? "a[i], c, v" : "a[i], v";
  if (!at(Tok::LParen))
    fail(Name, fmt::format("'{}' must be called, as in '{}({})'", Dsl, Dsl, Example));
  consume();
  const bool Ampersand = Cuda && at(Tok::Amp);
  if (Ampersand)
    consume();
  const Token TargetTok = tok();
  Expr Target = parseExpr();
  int Height = LastHeight;
  if (!Target.is<ArrayRead>())
    fail(TargetTok, fmt::format("the first argument of '{}' must be an array element, as in '{}({})'", Dsl, Dsl,
                                Example));
  Atomic A;
  A.Op = Op;
  A.Target = std::get<ArrayRead>(std::move(Target.Node));
  while (at(Tok::Comma)) {
    consume();
    A.Args.push_back(parseExpr());
    Height = std::max(Height, LastHeight);
  }
  expect(Tok::RParen, "to close the arguments");
  const auto Want = static_cast<std::size_t>(arity(Op));
  if (A.Args.size() != Want) // the call is read whole: parsing goes on after it
    report(Name, fmt::format("'{}' takes an element and {}, got {} value{}, as in '{}({})'", Dsl,
                           Want == 1 ? "a value" : "a compare value and a new value", A.Args.size(),
                           A.Args.size() == 1 ? "" : "s", Dsl, Example));
  Expr E{std::move(A), loc(Name)};
  if (Cuda) {
    // CUDA's call, as written (with or without the '&'), and the DSL's.
    std::string Args;
    for (const Expr &V : E.as<Atomic>()->Args)
      Args += ", " + print(V);
    const std::string Element = print(Expr{E.as<Atomic>()->Target, {}});
    report(Name, fmt::format("'{}({}{}{})' is written '{}({}{})' in bankwise", Name.Text, Ampersand ? "&" : "",
                             Element, Args, Dsl, Element, Args));
  }
  setHeight(Height + 1, Name);
  return E;
}

} // namespace bankwise::dsl::detail
