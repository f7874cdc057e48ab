// Generic kernels (`kernel NAME<T: type, S: int = ...>`, made kernels by
// `instance`) and functions (`fn`), both expanded by the parser at the
// token level: an instance is its generic kernel's tokens with the
// arguments put in, parsed as a kernel of its own; a call is the
// function's tokens with the arguments put in, read in the call's place.
// The IR never sees either, so every later pass (analysis, checks,
// codegen, the printer) works on ordinary kernels.
#include "dsl/detail/ParserImpl.h"

#include "ir/Walk.h"

#include <functional>
#include <set>

namespace bankwise::dsl::detail {

namespace {

using Substitution = std::map<std::string, std::vector<Token>, std::less<>>;

/// Tokens with each identifier Map names replaced by Map's tokens, and each
/// identifier Renames names given its new text (keeping its location).
std::vector<Token> substitute(const std::vector<Token> &In, const Substitution &Map,
                              const std::map<std::string, std::string, std::less<>> &Renames = {}) {
  std::vector<Token> Out;
  Out.reserve(In.size());
  for (const Token &T : In) {
    if (T.Kind == Tok::Ident) {
      if (auto It = Map.find(T.Text); It != Map.end()) {
        Out.insert(Out.end(), It->second.begin(), It->second.end());
        continue;
      }
      if (auto It = Renames.find(T.Text); It != Renames.end()) {
        Out.push_back(T);
        Out.back().Text = It->second;
        continue;
      }
    }
    Out.push_back(T);
  }
  return Out;
}

Token tokenLike(const Token &At, Tok Kind, std::string Text = {}) {
  Token T = At;
  T.Kind = Kind;
  T.Text = std::move(Text);
  T.IntValue = 0;
  T.FloatValue = 0;
  return T;
}

/// Ts in parentheses (at Ts' first token) unless it is one token.
std::vector<Token> parenthesized(std::vector<Token> Ts) {
  if (Ts.size() <= 1)
    return Ts;
  Ts.insert(Ts.begin(), tokenLike(Ts.front(), Tok::LParen, "("));
  Ts.push_back(tokenLike(Ts.back(), Tok::RParen, ")"));
  return Ts;
}

/// The tokens of integer V, as the lexer would give `5` or `(-5)`.
std::vector<Token> integerTokens(std::int64_t V, const Token &At) {
  Token I = tokenLike(At, Tok::Int, std::to_string(V));
  I.IntValue = V < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(V) : static_cast<std::uint64_t>(V);
  if (V >= 0)
    return {I};
  I.Text = std::to_string(I.IntValue);
  return {tokenLike(At, Tok::LParen, "("), tokenLike(At, Tok::Minus, "-"), I, tokenLike(At, Tok::RParen, ")")};
}

bool isTypeToken(const std::vector<Token> &Ts) {
  return Ts.size() == 1 && Ts[0].Kind == Tok::Ident && parseElemType(Ts[0].Text).has_value();
}

/// The names a function's block declares: lets, loop variables, arrays.
void collectLocals(const Block &B, std::vector<std::string> &Out) {
  for (const Stmt &St : B) {
    if (const auto *L = St.as<Let>())
      Out.push_back(L->Name);
    else if (const auto *F = St.as<For>())
      Out.push_back(F->Var), collectLocals(F->Body, Out);
    else if (const auto *I = St.as<If>())
      collectLocals(I->Then, Out), collectLocals(I->Else, Out);
    else if (const auto *W = St.as<While>())
      collectLocals(W->Body, Out);
    else if (const auto *D = St.as<ArrayDecl>())
      Out.push_back(D->Decl.Name);
  }
}

} // namespace

void Parser::countExpansion(std::size_t N, const Token &At) {
  Defs.ExpandedTokens += N;
  if (Defs.ExpandedTokens > MaxExpandedTokens) {
    Src.error(Diags, loc(At),
              fmt::format("expanding functions and generic kernels passes the limit of {} tokens",
                          MaxExpandedTokens));
    throw Abort{};
  }
}

namespace {

/// The tokens of a generic default or argument: up to the next ',' or '>'
/// outside parentheses and brackets.
std::vector<Token> untilCommaOrGt(const std::vector<Token> &Toks, std::size_t &Pos) {
  std::vector<Token> Out;
  int Depth = 0;
  while (Pos + 1 < Toks.size()) {
    const Token &T = Toks[Pos];
    if (Depth == 0 && (T.Kind == Tok::Comma || T.Kind == Tok::Gt))
      break;
    if (T.Kind == Tok::LBrace || T.Kind == Tok::RBrace || T.Kind == Tok::Semi || isTopKeyword(T))
      break;
    if (T.Kind == Tok::LParen || T.Kind == Tok::LBrack)
      ++Depth;
    else if (T.Kind == Tok::RParen || T.Kind == Tok::RBrack)
      --Depth;
    if (Depth < 0)
      break;
    Out.push_back(T);
    ++Pos;
  }
  return Out;
}

} // namespace

void Parser::parseGenericKernel(const Token &Name) {
  GenericKernel G;
  G.Name = Name;
  consume(); // '<'
  std::set<std::string, std::less<>> Seen;
  do {
    GenericKernel::Param P;
    P.Name = expectName("a generic parameter name");
    if (isReserved(P.Name.Text) || parseElemType(P.Name.Text) || P.Name.Text == "bytes")
      fail(P.Name, fmt::format("'{}' cannot name a generic parameter", P.Name.Text));
    if (!Seen.insert(P.Name.Text).second)
      fail(P.Name, fmt::format("generic parameter '{}' is declared twice", P.Name.Text));
    expect(Tok::Colon, "after the generic parameter (as in 'T: type' or 'S: int')");
    const Token Kind = expectName("'type' or 'int'");
    if (Kind.Text == "type")
      P.IsType = true;
    else if (Kind.Text != "int")
      fail(Kind, fmt::format("expected 'type' or 'int' for generic parameter '{}', found '{}'", P.Name.Text,
                             Kind.Text));
    if (at(Tok::Assign)) {
      const Token Eq = consume();
      P.Default = untilCommaOrGt(Toks, Pos);
      if (P.Default.empty())
        fail(Eq, fmt::format("expected a default for '{}' after '='", P.Name.Text));
    }
    G.Params.push_back(std::move(P));
  } while (at(Tok::Comma) && (consume(), true));
  expect(Tok::Gt, "to close the generic parameters");
  if (!at(Tok::LParen))
    failExpected("'(' and the kernel's parameters");
  const std::size_t Start = Pos;
  while (!at(Tok::LBrace)) {
    if (at(Tok::Eof) || isTopKeyword(tok()) || at(Tok::RBrace))
      failExpected(fmt::format("the body of kernel '{}'", Name.Text));
    consume();
  }
  const Token Open = tok();
  for (int Braces = 0;;) {
    if (at(Tok::Eof)) {
      Src.error(Diags, loc(tok()), "expected '}', found end of file");
      Src.note(Diags, loc(Open), "to match this '{'");
      throw SyntaxError{};
    }
    Braces += at(Tok::LBrace) ? 1 : at(Tok::RBrace) ? -1 : 0;
    consume();
    if (Braces == 0)
      break;
  }
  G.Rest.assign(Toks.begin() + static_cast<std::ptrdiff_t>(Start), Toks.begin() + static_cast<std::ptrdiff_t>(Pos));
  for (std::size_t I = 0; I + 2 < G.Rest.size(); ++I) {
    const Token &T = G.Rest[I], &Next = G.Rest[I + 1];
    const bool Declares = T.Kind == Tok::Ident && (T.Text == "let" || T.Text == "for" ||
                                                   (isSpaceKeyword(T) && G.Rest[I + 2].Kind == Tok::Colon));
    if (Declares && Next.Kind == Tok::Ident && Seen.count(Next.Text))
      Src.error(Diags, loc(Next),
                fmt::format("'{}' is a generic parameter of '{}' and cannot be declared again", Next.Text,
                            Name.Text));
  }
  if (S.declareFunction(Name.Text, loc(Name)))
    Defs.Generics.emplace(Name.Text, std::move(G));
}

void Parser::parseInstance() {
  consume();
  do {
    std::optional<Token> Alias;
    if (at(Tok::Ident) && tok(1).Kind == Tok::Assign) {
      Alias = consume();
      consume();
    }
    const Token Base = expectName("a generic kernel's name");
    auto It = Defs.Generics.find(Base.Text);
    if (It == Defs.Generics.end())
      fail(Base, S.isGlobalName(Base.Text)
                     ? fmt::format("'{}' is not a generic kernel: it has no '<...>' parameters", Base.Text)
                     : fmt::format("no generic kernel '{}' is declared before this instance", Base.Text));
    GenericKernel &G = It->second;
    ++G.Instances; // tried, at least: no "never instantiated" on top of its errors
    expect(Tok::Lt, fmt::format("and the arguments of '{}', as in '{}<f32>'", Base.Text, Base.Text));
    std::vector<std::vector<Token>> Args;
    if (!at(Tok::Gt)) {
      do {
        const Token First = tok();
        Args.push_back(untilCommaOrGt(Toks, Pos));
        if (Args.back().empty())
          fail(First, fmt::format("expected an argument of '{}', found {}", Base.Text, found(First)));
      } while (at(Tok::Comma) && (consume(), true));
    }
    const Token Close = expect(Tok::Gt, "to close the instance's arguments");
    if (Args.size() > G.Params.size())
      fail(Base, fmt::format("'{}' takes {} argument{}, got {}", Base.Text, G.Params.size(),
                             G.Params.size() == 1 ? "" : "s", Args.size()));

    Substitution Subst;
    std::vector<std::string> NameParts, Shown;
    for (std::size_t I = 0; I < G.Params.size(); ++I) {
      const GenericKernel::Param &P = G.Params[I];
      const bool Given = I < Args.size();
      if (!Given && P.Default.empty())
        fail(Close, fmt::format("'{}' needs an argument for '{}', which has no default", Base.Text, P.Name.Text));
      const std::vector<Token> Raw = Given ? Args[I] : substitute(P.Default, Subst);
      if (P.IsType) {
        if (!isTypeToken(Raw))
          fail(Raw.front(), fmt::format("'{}' of '{}' is a type: expected an element type such as 'f32', found {}",
                                        P.Name.Text, Base.Text, found(Raw.front())));
        Subst[P.Name.Text] = {tokenLike(Raw.front(), Tok::Ident, Raw.front().Text)};
        if (Given)
          NameParts.push_back(Raw.front().Text);
        Shown.push_back(fmt::format("{} = {}", P.Name.Text, Raw.front().Text));
        continue;
      }
      if (isTypeToken(Raw))
        fail(Raw.front(), fmt::format("'{}' of '{}' is an integer, found the type '{}'", P.Name.Text, Base.Text,
                                      Raw.front().Text));
      std::vector<Token> ExprToks = Raw;
      ExprToks.push_back(tokenLike(Raw.back(), Tok::Eof));
      Parser Sub(*this, std::move(ExprToks));
      Expr E = Sub.parseExpr();
      if (!Sub.at(Tok::Eof))
        Sub.failExpected(fmt::format("',' or '>' after the argument for '{}'", P.Name.Text));
      const std::optional<std::int64_t> V = S.evaluateConstant(E);
      if (!V)
        throw SyntaxError{};
      Subst[P.Name.Text] = integerTokens(*V, Raw.front());
      if (Given)
        NameParts.push_back(*V < 0 ? "m" + Subst[P.Name.Text][2].Text : std::to_string(*V));
      Shown.push_back(fmt::format("{} = {}", P.Name.Text, *V));
    }
    std::string Name = Base.Text;
    for (const std::string &Part : NameParts)
      Name += "_" + Part;
    if (Alias)
      Name = Alias->Text;

    std::vector<Token> Kernel{tokenLike(Base, Tok::Ident, "kernel"), tokenLike(Alias ? *Alias : Base, Tok::Ident, Name)};
    std::vector<Token> Body = substitute(G.Rest, Subst);
    Kernel.insert(Kernel.end(), Body.begin(), Body.end());
    Kernel.push_back(tokenLike(Kernel.back(), Tok::Eof));
    countExpansion(Kernel.size(), Base);
    const int Before = Diags.numErrors();
    Parser Sub(*this, std::move(Kernel));
    try {
      Sub.parseKernel();
    } catch (SyntaxError &) {
    }
    if (Diags.numErrors() > Before && !Src.capped()) {
      std::string Args;
      for (const std::string &A : Shown)
        Args += (Args.empty() ? "" : ", ") + A;
      Src.note(Diags, loc(Base), fmt::format("in kernel '{}', the instance of generic kernel '{}' with {}", Name,
                                             Base.Text, Args));
    }
  } while (at(Tok::Comma) && (consume(), true));
}

void Parser::warnUninstantiated() {
  std::vector<const GenericKernel *> Unused;
  for (const auto &[Name, G] : Defs.Generics)
    if (G.Instances == 0)
      Unused.push_back(&G);
  std::sort(Unused.begin(), Unused.end(), [](const GenericKernel *A, const GenericKernel *B) {
    return std::pair(A->Name.Line, A->Name.Col) < std::pair(B->Name.Line, B->Name.Col);
  });
  for (const GenericKernel *G : Unused)
    Src.warning(Diags, loc(G->Name),
                  fmt::format("generic kernel '{}' is never instantiated, so no kernel is made from it; add "
                              "'instance {}<...>'",
                              G->Name.Text, G->Name.Text));
}

//===-- Functions
//------------------------------------------------------------===//

const UserFunction *Parser::functionAt(const Token &T) const {
  if (T.Kind != Tok::Ident)
    return nullptr;
  auto It = Defs.Functions.find(T.Text);
  return It == Defs.Functions.end() ? nullptr : &It->second;
}

void Parser::parseFunction() {
  consume();
  Defs.CallsInKernel.clear();
  UserFunction F;
  F.Name = expectName("a function name");
  if (isReserved(F.Name.Text) || F.Name.Text == "bytes" || F.Name.Text == "inverse")
    fail(F.Name, fmt::format("'{}' is a built-in word and cannot name a function", F.Name.Text));
  expect(Tok::LParen, "after the function name");
  std::set<std::string, std::less<>> Params;
  if (!at(Tok::RParen)) {
    do {
      const Token P = expectName("a parameter name");
      if (isReserved(P.Text))
        fail(P, fmt::format("'{}' is a reserved word and cannot name a parameter", P.Text));
      if (!Params.insert(P.Text).second)
        fail(P, fmt::format("parameter '{}' of function '{}' is declared twice", P.Text, F.Name.Text));
      F.Params.push_back(P.Text);
    } while (at(Tok::Comma) && (consume(), true));
  }
  expect(Tok::RParen, "to close the function's parameters");

  const int Before = Diags.numErrors();
  std::vector<const Expr *> Exprs;
  Block B;
  Expr Value;
  if (at(Tok::Assign)) {
    consume();
    const std::size_t Start = Pos;
    Value = parseExpr();
    F.Body.assign(Toks.begin() + static_cast<std::ptrdiff_t>(Start), Toks.begin() + static_cast<std::ptrdiff_t>(Pos));
  } else if (at(Tok::LBrace)) {
    const std::size_t Start = Pos;
    parseBlock(B);
    F.IsBlock = true;
    if (Pos >= Start + 2)
      F.Body.assign(Toks.begin() + static_cast<std::ptrdiff_t>(Start + 1),
                    Toks.begin() + static_cast<std::ptrdiff_t>(Pos - 1));
    collectLocals(B, F.Locals);
  } else {
    failExpected(fmt::format("'=' and an expression, or a block, for function '{}'", F.Name.Text));
  }

  // Every name the body uses is a parameter, one of its locals or a
  // top-level name, so a call never picks up the caller's locals.
  std::set<std::string, std::less<>> Known(Params.begin(), Params.end());
  Known.insert(F.Locals.begin(), F.Locals.end());
  auto Check = [&](const std::string &Name, const SourceLoc &At) {
    if (Known.count(Name) || S.isGlobalName(Name) || isGeometryWord(Name))
      return;
    Known.insert(Name); // once per name
    if (Name == F.Name.Text)
      return Src.error(Diags, At,
                       fmt::format("function '{}' calls itself; functions are expanded where they are called, "
                                   "so they cannot recurse",
                                   Name));
    Src.error(Diags, At,
              fmt::format("'{}' in function '{}' is none of its parameters, its locals or the top-level "
                          "names; pass it as a parameter",
                          Name, F.Name.Text));
  };
  auto CheckExpr = [&](const Expr &E) {
    forEachSubexpr(E, [&](const Expr &X) {
      if (const auto *V = X.as<VarRef>())
        Check(V->Name, X.Loc);
      else if (const auto *R = X.as<ArrayRead>())
        Check(R->Array, X.Loc);
      else if (const auto *P = X.as<PermApply>())
        Check(P->Perm, X.Loc);
    });
  };
  if (F.IsBlock) {
    forEachStmtExpr(B, CheckExpr);
    std::function<void(const Block &)> Targets = [&](const Block &Bl) {
      for (const Stmt &St : Bl) {
        if (const auto *A = St.as<Assign>()) {
          if (const auto *V = std::get_if<VarRef>(&A->Target))
            Check(V->Name, St.Loc);
          else
            Check(std::get<ArrayRead>(A->Target).Array, St.Loc);
        } else if (const auto *Fo = St.as<For>()) {
          Targets(Fo->Body);
        } else if (const auto *I = St.as<If>()) {
          Targets(I->Then), Targets(I->Else);
        } else if (const auto *W = St.as<While>()) {
          Targets(W->Body);
        } else if (const auto *D = St.as<ArrayDecl>()) {
          for (const Expr &Dim : D->Decl.Dims)
            CheckExpr(Dim);
        }
      }
    };
    Targets(B);
  } else {
    CheckExpr(Value);
  }
  F.Valid = Diags.numErrors() == Before;
  if (S.declareFunction(F.Name.Text, loc(F.Name)))
    Defs.Functions.emplace(F.Name.Text, std::move(F));
}

void Parser::expandCall(const UserFunction &F) {
  const std::size_t CallStart = Pos;
  const Token Name = consume();
  if (!at(Tok::LParen)) {
    std::string Params;
    for (const std::string &P : F.Params)
      Params += (Params.empty() ? "" : ", ") + P;
    fail(Name, fmt::format("function '{}' must be called, as in '{}({})'", Name.Text, Name.Text, Params));
  }
  consume();
  std::vector<std::pair<std::size_t, std::size_t>> Ranges;
  if (!at(Tok::RParen)) {
    do {
      const std::size_t A = Pos;
      parseExpr();
      Ranges.emplace_back(A, Pos);
    } while (at(Tok::Comma) && (consume(), true));
  }
  expect(Tok::RParen, "to close the arguments");
  if (Ranges.size() != F.Params.size())
    fail(Name, fmt::format("function '{}' takes {} argument{}, got {}", Name.Text, F.Params.size(),
                           F.Params.size() == 1 ? "" : "s", Ranges.size()));

  std::vector<Token> Out;
  if (F.Valid) {
    Substitution Map;
    for (std::size_t I = 0; I < Ranges.size(); ++I)
      Map[F.Params[I]] = parenthesized({Toks.begin() + static_cast<std::ptrdiff_t>(Ranges[I].first),
                                        Toks.begin() + static_cast<std::ptrdiff_t>(Ranges[I].second)});
    std::map<std::string, std::string, std::less<>> Renames;
    if (F.IsBlock) {
      const int K = ++Defs.CallsInKernel[F.Name.Text];
      for (const std::string &L : F.Locals)
        Renames[L] = fmt::format("{}_{}{}", F.Name.Text, L, K > 1 ? fmt::format("_{}", K) : "");
    }
    Out = substitute(F.Body, Map, Renames);
    if (!F.IsBlock)
      Out = parenthesized(std::move(Out));
  } else if (!F.IsBlock) {
    Out = integerTokens(0, Name); // its errors are reported at the definition
  }
  countExpansion(Out.size(), Name);
  Toks.erase(Toks.begin() + static_cast<std::ptrdiff_t>(CallStart), Toks.begin() + static_cast<std::ptrdiff_t>(Pos));
  Toks.insert(Toks.begin() + static_cast<std::ptrdiff_t>(CallStart), Out.begin(), Out.end());
  Pos = CallStart;
}

} // namespace bankwise::dsl::detail
