// Blocks, statements and expressions of the .bw parser (the productions
// block ... primary of docs/language.md; the grammar of each is at its
// declaration in detail/ParserImpl.h).
#include "dsl/detail/ParserImpl.h"

namespace bankwise::dsl::detail {

void Parser::parseBlock(Block &Out) {
  Nest N(*this);
  const Token Open = expect(Tok::LBrace);
  while (!at(Tok::RBrace) && !at(Tok::Eof) && !isTopKeyword(tok())) {
    const std::size_t Start = Pos;
    try {
      if (const UserFunction *F = functionAt(tok()); F && tok(1).Kind == Tok::LParen) {
        if (!F->IsBlock)
          fail(tok(), fmt::format("function '{}' computes a value: use it in an expression, as in "
                                  "'let v = {}(...)'",
                                  tok().Text, tok().Text));
        expandCall(*F); // its statements are read next, in this block
        continue;
      }
      Out.push_back(parseStmt());
    } catch (SyntaxError &) {
      syncStmt(Start);
    }
    while (at(Tok::Semi))
      consume();
  }
  if (at(Tok::RBrace)) {
    consume();
    return;
  }
  Src.error(Diags, loc(tok()),
            fmt::format("expected '}}', found {}", found(tok())));
  Src.note(Diags, loc(Open), "to match this '{'");
  if (Src.capped())
    throw Abort{};
}

Stmt Parser::parseStmt() {
  Stmt St;
  St.Loc = loc(tok());
  const std::optional<std::string_view> CType = cudaLocalType(tok());
  if (CType && tok(1).Kind == Tok::Ident && tok(2).Kind == Tok::Assign) {
    const Token TypeTok = consume();
    report(TypeTok, fmt::format("'{} {} = ...' is written 'let {}{} = ...' in bankwise", TypeTok.Text,
                                tok().Text, tok().Text, CType->empty() ? "" : fmt::format(": {}", *CType)));
    Let L;
    L.Name = consume().Text;
    if (!CType->empty())
      L.Type = parseElemType(*CType);
    consume();
    L.Init = parseExpr();
    St.Node = std::move(L);
  } else if (atIncrement() && tok(2).Kind == Tok::Ident) {
    const Token Op = consumeIncrement();
    St.Node = parseAssignment(&Op);
  } else if (atWord("let")) {
    consume();
    Let L;
    L.Name = expectName("a local name").Text;
    if (at(Tok::Colon)) {
      consume();
      const Token TypeTok = expectName("an element type");
      const std::optional<ElemType> T = parseElemType(TypeTok.Text);
      if (!T || T->Lanes != 1)
        fail(TypeTok, fmt::format("expected a scalar element type for local '{}' (i8 ... u64, f16, bf16, "
                                  "f32, f64), found '{}'",
                                  L.Name, TypeTok.Text));
      L.Type = *T;
    }
    expect(Tok::Assign, "after the local name");
    L.Init = parseExpr();
    St.Node = std::move(L);
  } else if (atWord("while")) {
    consume();
    While W;
    W.Cond = parseExpr();
    parseBlock(W.Body);
    St.Node = std::move(W);
  } else if (atWord("for")) {
    consume();
    For F;
    F.Var = expectName("a loop variable").Text;
    expectWord("in");
    F.Begin = parseExpr();
    expect(Tok::DotDot, "in the loop range");
    F.End = parseExpr();
    if (atWord("step")) {
      consume();
      F.Step = parseExpr();
    }
    parseBlock(F.Body);
    St.Node = std::move(F);
  } else if (atWord("if")) {
    St.Node = parseIf(/*IsElseIf=*/false);
  } else if (atWord("sync")) {
    consume();
    St.Node = Sync{};
  } else if (isSpaceKeyword(tok())) {
    St.Node = ArrayDecl{parseArrayDecl()};
  } else if (atWord("view")) {
    St.Node = ArrayDecl{parseView()};
  } else if (atIntrinsicCall()) { // an atomic whose old value is dropped
    St.Node = ExprStmt{parseExpr()};
  } else if (at(Tok::Ident) && !isReserved(tok().Text)) {
    St.Node = parseAssignment(nullptr);
  } else {
    failExpected("a statement");
  }
  return St;
}

Assign Parser::parseAssignment(const Token *Prefix) {
  const Token Name = expectName("a local or an array element");
  Assign A;
  Expr Target;
  if (at(Tok::LBrack)) {
    ArrayRead R{Name.Text, {}};
    while (at(Tok::LBrack)) {
      consume();
      R.Indices.push_back(parseExpr());
      expect(Tok::RBrack, "after the index");
    }
    A.Target = R;
    Target = Expr{std::move(R), loc(Name)};
  } else {
    A.Target = VarRef{Name.Text, VarKind::Unresolved};
    Target = makeVar(Name.Text, VarKind::Unresolved, loc(Name));
  }
  std::string TargetText = print(Target);
  if (Prefix || atIncrement()) {
    // CUDA's ++i, i++, --i, i--: the DSL writes `i += 1`.
    const Token Op = Prefix ? *Prefix : consumeIncrement();
    const bool Inc = Op.Kind == Tok::Plus;
    report(Op, fmt::format("'{}' is written '{} {}= 1' in bankwise",
                           Prefix ? Op.Text + TargetText : TargetText + Op.Text, TargetText, Inc ? '+' : '-'));
    A.Compound = Inc ? BinaryOp::Add : BinaryOp::Sub;
    A.Value = makeBinary(*A.Compound, std::move(Target), makeInt(1, loc(Op)), loc(Op));
    return A;
  }
  if (at(Tok::OpAssign)) {
    const Token Op = consume();
    A.Compound = compoundOp(Op.Text);
    Expr Rhs = parseExpr();
    setHeight(LastHeight + 1, Op);
    A.Value = makeBinary(*A.Compound, std::move(Target), std::move(Rhs), loc(Op));
    return A;
  }
  expect(Tok::Assign, "in the assignment");
  A.Value = parseExpr();
  return A;
}

bool Parser::atIncrement() const {
  return (at(Tok::Plus) || at(Tok::Minus)) && tok(1).Kind == tok().Kind && tok(1).Line == tok().Line &&
         tok(1).Col == tok().Col + 1;
}

Token Parser::consumeIncrement() {
  Token Op = consume();
  consume();
  Op.Text += Op.Text;
  return Op;
}

BinaryOp Parser::compoundOp(std::string_view Text) {
  static constexpr std::array<std::pair<std::string_view, BinaryOp>, 10> Ops{{
      {"+=", BinaryOp::Add}, {"-=", BinaryOp::Sub}, {"*=", BinaryOp::Mul}, {"/=", BinaryOp::Div},
      {"%=", BinaryOp::Mod}, {"<<=", BinaryOp::Shl}, {">>=", BinaryOp::Shr}, {"&=", BinaryOp::BitAnd},
      {"|=", BinaryOp::BitOr}, {"^=", BinaryOp::BitXor},
  }};
  for (const auto &[T, Op] : Ops)
    if (T == Text)
      return Op;
  return BinaryOp::Add; // the lexer makes no other
}

std::optional<std::string_view> Parser::cudaLocalType(const Token &T) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 14> Types{{
      {"float", "f32"}, {"double", "f64"}, {"int", "i32"}, {"unsigned", "u32"}, {"long", "i64"},
      {"short", "i16"}, {"char", "i8"}, {"half", "f16"}, {"__half", "f16"}, {"int32_t", "i32"},
      {"int64_t", "i64"}, {"uint32_t", "u32"}, {"uint64_t", "u64"}, {"auto", ""},
  }};
  if (T.Kind != Tok::Ident)
    return std::nullopt;
  for (const auto &[C, Dsl] : Types)
    if (C == T.Text)
      return Dsl;
  return std::nullopt;
}

void Parser::report(const Token &At, std::string Msg) {
  Src.error(Diags, loc(At), std::move(Msg));
  if (Src.capped())
    throw Abort{};
}

If Parser::parseIf(bool IsElseIf) {
  // An else-if chain nests without a block of its own.
  std::optional<Nest> N;
  if (IsElseIf)
    N.emplace(*this);
  consume();
  If I;
  I.Cond = parseExpr();
  parseBlock(I.Then);
  if (atWord("else")) {
    consume();
    if (atWord("if")) {
      Stmt Inner;
      Inner.Loc = loc(tok());
      Inner.Node = parseIf(/*IsElseIf=*/true);
      I.Else.push_back(std::move(Inner));
    } else {
      parseBlock(I.Else);
    }
  }
  return I;
}

Expr Parser::parseExpr() {
  Expr Cond = parseBinary(LoosestLevel);
  if (!at(Tok::Question))
    return Cond;
  int Height = LastHeight;
  Nest N(*this); // a chain of '?:' nests through its arms
  const Token Q = consume();
  Expr Then = parseExpr();
  Height = std::max(Height, LastHeight);
  expect(Tok::Colon, "in '?:'");
  Expr Else = parseExpr();
  setHeight(1 + std::max(Height, LastHeight), Q);
  return Expr{Select{std::move(Cond), std::move(Then), std::move(Else)}, loc(Q)};
}

Expr Parser::parseBinary(int MinLevel) {
  Expr Lhs = parseUnary();
  int Height = LastHeight;
  while (auto Op = binaryOp(tok().Kind)) {
    const int Level = precedence(*Op);
    if (Level < MinLevel)
      break;
    const Token OpTok = consume();
    Expr Rhs = parseBinary(Level + 1);
    Lhs = makeBinary(*Op, std::move(Lhs), std::move(Rhs), loc(OpTok));
    setHeight(1 + std::max(Height, LastHeight), OpTok);
    Height = LastHeight;
  }
  LastHeight = Height;
  return Lhs;
}

Expr Parser::parseUnary() {
  Nest N(*this);
  if (at(Tok::Minus) && tok(1).Kind == Tok::Int) {
    const Token Minus = consume();
    const Token Lit = consume();
    // -2^63 is the one literal whose magnitude has no int64_t.
    const std::int64_t V = Lit.IntValue == (std::uint64_t{1} << 63)
                               ? INT64_MIN
                               : -static_cast<std::int64_t>(Lit.IntValue);
    setHeight(1, Minus);
    return makeInt(V, loc(Minus));
  }
  UnaryOp Op;
  if (at(Tok::Minus))
    Op = UnaryOp::Neg;
  else if (at(Tok::Bang))
    Op = UnaryOp::Not;
  else if (at(Tok::Tilde))
    Op = UnaryOp::BitNot;
  else
    return parsePrimary();
  const Token OpTok = consume();
  Expr Operand = parseUnary();
  setHeight(LastHeight + 1, OpTok);
  return Expr{Unary{Op, std::move(Operand)}, loc(OpTok)};
}

Expr Parser::parsePrimary() {
  const Token T = tok();
  if (T.Kind == Tok::Float) {
    consume();
    setHeight(1, T);
    return Expr{FloatLit{T.FloatValue}, loc(T)};
  }
  if (T.Kind == Tok::Int) {
    consume();
    if (T.IntValue > static_cast<std::uint64_t>(INT64_MAX))
      fail(T, fmt::format("integer literal '{}' does not fit in 64 bits",
                          T.Text));
    setHeight(1, T);
    return makeInt(static_cast<std::int64_t>(T.IntValue), loc(T));
  }
  if (T.Kind == Tok::LParen) {
    consume();
    Expr E = parseExpr();
    expect(Tok::RParen, "to close '('");
    return E;
  }
  if (T.Kind != Tok::Ident)
    failExpected("an expression");
  if (std::optional<Expr> I = parseIntrinsic(T))
    return std::move(*I);
  if (auto B = builtinNamed(T.Text)) {
    consume();
    setHeight(1, T);
    return Expr{BuiltinRef{*B}, loc(T)};
  }
  if (auto Fn = functionNamed(T.Text)) {
    consume();
    if (!at(Tok::LParen))
      fail(T, fmt::format("function '{}' must be called, as in '{}({})'",
                          T.Text, T.Text, arity(*Fn) == 1 ? "x" : "a, b"));
    std::vector<Expr> Args = parseArgs();
    if (static_cast<int>(Args.size()) != arity(*Fn))
      fail(T,
           fmt::format("'{}' takes {} argument{}, got {}", T.Text, arity(*Fn),
                       arity(*Fn) == 1 ? "" : "s", Args.size()));
    setHeight(LastHeight + 1, T);
    return Expr{Call{*Fn, std::move(Args)}, loc(T)};
  }
  if (T.Text == "inverse") {
    consume();
    expect(Tok::LParen, "after 'inverse'");
    const Token Perm = expectName("a permutation name");
    expect(Tok::RParen, "after the permutation name");
    return parsePermApply(Perm, true, T);
  }
  if (const UserFunction *F = functionAt(T)) {
    if (F->IsBlock)
      fail(T, fmt::format("function '{}' has a block body: it is a statement, called on a line of its own",
                          T.Text));
    expandCall(*F);
    return parsePrimary(); // the '(' that opens the expansion
  }
  if (T.Text == "bytes" && tok(1).Kind == Tok::LParen && !S.isGlobalName(T.Text)) { // bytes(f32) == 4
    const std::optional<ElemType> Type = tok(2).Kind == Tok::Ident && tok(3).Kind == Tok::RParen
                                             ? parseElemType(tok(2).Text)
                                             : std::nullopt;
    if (!Type)
      fail(tok(2), fmt::format("'bytes' takes an element type such as 'f32', found {}", found(tok(2))));
    Pos += 4;
    setHeight(1, T);
    return makeInt(byteSize(*Type), loc(T));
  }
  if (isGeometryWord(T.Text)) { // bdx ... gdz: Sema puts the geometry in
    consume();
    setHeight(1, T);
    return makeVar(T.Text, VarKind::Unresolved, loc(T));
  }
  if (isReserved(T.Text))
    failExpected("an expression");
  consume();
  if (at(Tok::LParen))
    return parsePermApply(T, false, T);
  if (!at(Tok::LBrack)) {
    setHeight(1, T);
    return makeVar(T.Text, VarKind::Unresolved, loc(T));
  }
  ArrayRead R{T.Text, {}};
  int Height = 0;
  while (at(Tok::LBrack)) {
    consume();
    R.Indices.push_back(parseExpr());
    Height = std::max(Height, LastHeight);
    expect(Tok::RBrack, "after the index");
  }
  setHeight(Height + 1, T);
  return Expr{std::move(R), loc(T)};
}

std::vector<Expr> Parser::parseArgs() {
  expect(Tok::LParen);
  std::vector<Expr> Args;
  int Height = 0;
  if (!at(Tok::RParen)) {
    do {
      Args.push_back(parseExpr());
      Height = std::max(Height, LastHeight);
    } while (at(Tok::Comma) && (consume(), true));
  }
  expect(Tok::RParen, "to close the arguments");
  LastHeight = Height;
  return Args;
}

Expr Parser::parsePermApply(const Token &Perm, bool Inverse, const Token &Start) {
  std::vector<Expr> Args = parseArgs();
  if (Args.size() != 1)
    fail(Start, fmt::format("permutation '{}' takes 1 argument, got {}",
                            Perm.Text, Args.size()));
  setHeight(LastHeight + 1, Start);
  return Expr{PermApply{Perm.Text, Inverse, std::move(Args.front())},
              loc(Start)};
}

} // namespace bankwise::dsl::detail
