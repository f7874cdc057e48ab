// What CUDA developers reach for beyond plain loads and stores, in the .bw
// parser: atomics (`atomic_add(h[k], 1)`), warp shuffles (`shfl_xor(v,
// 16)`) and vector views (`view a4 = a as f32x4`). CUDA's spellings of them (`atomicAdd(&h[k], 1)`,
// `__shfl_xor_sync(0xffffffff, v, 16)`) are errors that name the DSL's,
// read as the DSL's so that the rest of the file is still checked. The grammar of each
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

struct ShuffleName {
  ShuffleOp Op;
  bool Cuda; ///< CUDA's spelling (__shfl_sync), an error naming the DSL's
};

/// The shuffle Name spells: `shfl` ... `shfl_down`, or CUDA's `__shfl_sync`
/// ... `__shfl_down_sync`.
std::optional<ShuffleName> shuffleNamed(std::string_view Name) {
  for (ShuffleOp Op : {ShuffleOp::Idx, ShuffleOp::Xor, ShuffleOp::Up, ShuffleOp::Down}) {
    if (Name == spelling(Op))
      return ShuffleName{Op, false};
    if (Name == cudaSpelling(Op))
      return ShuffleName{Op, true};
  }
  return std::nullopt;
}

/// What a shuffle's second argument is: "lane", "lane mask" or "distance".
std::string_view laneWord(ShuffleOp Op) {
  return Op == ShuffleOp::Idx ? "lane" : Op == ShuffleOp::Xor ? "lane mask" : "distance";
}

} // namespace

bool Parser::atIntrinsicCall() const {
  return at(Tok::Ident) && atomicNamed(tok().Text) && tok(1).Kind == Tok::LParen;
}

std::optional<Expr> Parser::parseIntrinsic(const Token &T) {
  if (const std::optional<AtomicName> A = atomicNamed(T.Text))
    return parseAtomic(T, A->Op, A->Cuda);
  if (const std::optional<ShuffleName> S = shuffleNamed(T.Text))
    return parseShuffle(T, S->Op, S->Cuda);
  return std::nullopt;
}

Expr Parser::parseShuffle(const Token &Name, ShuffleOp Op, bool Cuda) {
  consume();
  const std::string Dsl(spelling(Op));
  const std::string Example = fmt::format("{}(v, {})", Dsl, Op == ShuffleOp::Idx   ? 's'
                                                           : Op == ShuffleOp::Xor ? 'm'
                                                                                  : 'd');
  if (!at(Tok::LParen))
    fail(Name, fmt::format("'{}' must be called, as in '{}'", Dsl, Example));
  consume();
  // The arguments, and the first one's text when it is one token (CUDA's
  // mask, 0xffffffff, quoted as written).
  std::vector<Expr> Args;
  std::string FirstText;
  int Height = 0;
  if (!at(Tok::RParen)) {
    do {
      const std::size_t Start = Pos;
      Args.push_back(parseExpr());
      Height = std::max(Height, LastHeight);
      if (Args.size() == 1)
        FirstText = Pos == Start + 1 ? Toks[Start].Text : print(Args.front());
    } while (at(Tok::Comma) && (consume(), true));
  }
  expect(Tok::RParen, "to close the arguments");
  // The DSL's value and lane: all of them, or CUDA's after its mask (and
  // before an optional width).
  const std::size_t First = Cuda ? 1 : 0;
  const bool Fits = Cuda ? Args.size() == 3 || Args.size() == 4 : Args.size() == 2;
  if (!Fits) // the call is read whole: parsing goes on after it
    report(Name, Cuda ? fmt::format("'{}' takes a member mask, a value, a {} and an optional width, got {} argument{}; "
                                  "bankwise writes '{}'",
                                  Name.Text, laneWord(Op), Args.size(), Args.size() == 1 ? "" : "s", Example)
                    : fmt::format("'{}' takes a value and a {}, got {} argument{}, as in '{}'", Dsl, laneWord(Op),
                                  Args.size(), Args.size() == 1 ? "" : "s", Example));
  while (Args.size() < First + 2)
    Args.push_back(makeInt(0, loc(Name))); // stands in for what is missing (the run has failed)
  Shuffle S{Op, std::move(Args[First]), std::move(Args[First + 1])};
  if (Cuda && Fits) {
    const std::string V = print(*S.Value), L = print(*S.Lane);
    const std::string Width = Fits && Args.size() == 4 ? ", " + print(Args[3]) : "";
    report(Name, fmt::format("'{}({}, {}, {}{})' is written '{}({}, {})' in bankwise{}", Name.Text, FirstText, V, L,
                             Width, Dsl, V, L,
                             Width.empty() ? "" : " (its shuffles take the whole warp: width 32)"));
  }
  setHeight(Height + 1, Name);
  return Expr{std::move(S), loc(Name)};
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

Array Parser::parseView() {
  consume();
  Array V;
  const Token Name = expectName("a view name");
  V.Name = Name.Text;
  V.Loc = loc(Name);
  expect(Tok::Assign, "after the view name");
  V.ViewOf = expectName("the array to view").Text;
  expectWord("as");
  if (!at(Tok::Ident))
    failExpected("a vector element type");
  // Checked before it is read, so that recovery resumes after this line.
  const Token TypeTok = tok();
  const std::optional<ElemType> T = parseElemType(TypeTok.Text);
  if (!T || T->Lanes == 1)
    fail(TypeTok, fmt::format("expected a vector element type for view '{}' (f32x4, i32x2, ...), found '{}'", V.Name,
                              TypeTok.Text));
  consume();
  V.Elem = *T;
  return V;
}

} // namespace bankwise::dsl::detail
