#include "dsl/Parser.h"

#include "dsl/Lexer.h"
#include "dsl/Sema.h"
#include "ir/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bankwise::dsl {

using namespace ir;

namespace {

/// Thrown after a syntax error has been reported; caught where parsing can
/// resume (a statement or a top-level declaration).
struct SyntaxError {};
/// Thrown to stop parsing altogether (nesting limit, too many errors).
struct Abort {};

bool isTopKeyword(const Token &T) {
  static constexpr std::array<std::string_view, 6> Words{
      "target", "machine", "param", "permutation", "kernel", "launch"};
  return T.Kind == Tok::Ident &&
         std::find(Words.begin(), Words.end(), T.Text) != Words.end();
}

bool isSpaceKeyword(const Token &T) {
  return T.Kind == Tok::Ident &&
         (T.Text == "global" || T.Text == "shared" || T.Text == "local");
}

std::optional<Builtin> builtinNamed(std::string_view Name) {
  static constexpr std::array<std::pair<std::string_view, Builtin>, 9> Table{{
      {"tid", Builtin::Tid},
      {"lane", Builtin::Lane},
      {"warp", Builtin::Warp},
      {"tx", Builtin::Tx},
      {"ty", Builtin::Ty},
      {"tz", Builtin::Tz},
      {"bx", Builtin::Bx},
      {"by", Builtin::By},
      {"bz", Builtin::Bz},
  }};
  for (const auto &[N, B] : Table)
    if (N == Name)
      return B;
  return std::nullopt;
}

std::optional<Function> functionNamed(std::string_view Name) {
  if (Name == "min")
    return Function::Min;
  if (Name == "max")
    return Function::Max;
  if (Name == "log2")
    return Function::Log2;
  if (Name == "bitrev")
    return Function::Bitrev;
  return std::nullopt;
}

/// The binary operator K spells and its precedence level, 1 (||, loosest)
/// to 10 (* / %, tightest); the levels are ir::precedence's.
std::optional<BinaryOp> binaryOp(Tok K) {
  switch (K) {
  case Tok::PipePipe:
    return BinaryOp::LogOr;
  case Tok::AmpAmp:
    return BinaryOp::LogAnd;
  case Tok::Pipe:
    return BinaryOp::BitOr;
  case Tok::Caret:
    return BinaryOp::BitXor;
  case Tok::Amp:
    return BinaryOp::BitAnd;
  case Tok::EqEq:
    return BinaryOp::Eq;
  case Tok::Ne:
    return BinaryOp::Ne;
  case Tok::Lt:
    return BinaryOp::Lt;
  case Tok::Le:
    return BinaryOp::Le;
  case Tok::Gt:
    return BinaryOp::Gt;
  case Tok::Ge:
    return BinaryOp::Ge;
  case Tok::Shl:
    return BinaryOp::Shl;
  case Tok::Shr:
    return BinaryOp::Shr;
  case Tok::Plus:
    return BinaryOp::Add;
  case Tok::Minus:
    return BinaryOp::Sub;
  case Tok::Star:
    return BinaryOp::Mul;
  case Tok::Slash:
    return BinaryOp::Div;
  case Tok::Percent:
    return BinaryOp::Mod;
  default:
    return std::nullopt;
  }
}
constexpr int LoosestLevel = 1;

class Parser {
public:
  Parser(const SourceFile &Src, DiagnosticEngine &Diags,
         std::vector<Token> Toks, Sema &S)
      : Src(Src), Diags(Diags), Toks(std::move(Toks)), S(S) {}

  /// program ::= {topdecl [';']}
  void parseProgram() {
    try {
      while (!at(Tok::Eof)) {
        const std::size_t Start = Pos;
        try {
          parseTopDecl();
        } catch (SyntaxError &) {
          syncTop(Start);
        }
        while (at(Tok::Semi))
          consume();
      }
    } catch (Abort &) {
    }
  }

private:
  const SourceFile &Src;
  DiagnosticEngine &Diags;
  std::vector<Token> Toks;
  Sema &S;
  std::size_t Pos = 0;
  int Depth = 0;
  /// Height of the expression tree the last expression parser returned; kept
  /// within MaxNestingDepth so that every later pass may recurse over it.
  int LastHeight = 0;

  /// Records H as the height of the expression just built, At its operator.
  void setHeight(int H, const Token &At) {
    LastHeight = H;
    if (H > MaxNestingDepth) {
      Src.error(Diags, loc(At),
                fmt::format("nesting is deeper than the limit of {}",
                            MaxNestingDepth));
      throw Abort{};
    }
  }

  /// Counts one level of nesting for as long as it lives. Levels are opened
  /// by each unary expression (so by every parenthesis, index, argument and
  /// prefix operator), each block and each `else if`.
  class Nest {
  public:
    explicit Nest(Parser &P) : P(P) {
      if (++P.Depth > MaxNestingDepth) {
        P.Src.error(P.Diags, P.loc(P.tok()),
                    fmt::format("nesting is deeper than the limit of {}",
                                MaxNestingDepth));
        throw Abort{};
      }
    }
    ~Nest() { --P.Depth; }
    Nest(const Nest &) = delete;
    Nest &operator=(const Nest &) = delete;

  private:
    Parser &P;
  };

  //===-- Token helpers
  //-----------------------------------------------------===//

  const Token &tok(std::size_t Ahead = 0) const {
    return Toks[std::min(Pos + Ahead, Toks.size() - 1)];
  }
  bool at(Tok K) const { return tok().Kind == K; }
  bool atWord(std::string_view W) const {
    return at(Tok::Ident) && tok().Text == W;
  }
  Token consume() {
    Token T = tok();
    if (Pos + 1 < Toks.size())
      ++Pos;
    return T;
  }
  NodeLoc loc(const Token &T) const { return NodeLoc(Src.loc(T.Line, T.Col)); }

  std::string found(const Token &T) const {
    switch (T.Kind) {
    case Tok::Ident:
      return fmt::format("'{}'", T.Text);
    case Tok::Int:
      return fmt::format("integer {}", T.Text);
    case Tok::String:
      return "string";
    default:
      return describe(T.Kind);
    }
  }

  [[noreturn]] void fail(const Token &At, std::string Msg) {
    Src.error(Diags, loc(At), std::move(Msg));
    if (Src.capped())
      throw Abort{};
    throw SyntaxError{};
  }
  [[noreturn]] void failExpected(std::string_view What) {
    fail(tok(), fmt::format("expected {}, found {}", What, found(tok())));
  }

  Token expect(Tok K, std::string_view Context = {}) {
    if (!at(K))
      failExpected(Context.empty()
                       ? describe(K)
                       : fmt::format("{} {}", describe(K), Context));
    return consume();
  }
  void expectWord(std::string_view W) {
    if (!atWord(W))
      failExpected(fmt::format("'{}'", W));
    consume();
  }
  /// An identifier that names something new (not a keyword).
  Token expectName(std::string_view What) {
    if (!at(Tok::Ident))
      failExpected(What);
    return consume();
  }

  //===-- Recovery
  //----------------------------------------------------------===//

  /// Skips to the next token that can start a top-level declaration: a
  /// declaration keyword first on its line, outside braces opened since.
  void syncTop(std::size_t Start) {
    if (Pos == Start)
      consume();
    int Braces = 0;
    while (!at(Tok::Eof)) {
      const bool FirstOnLine = Pos == 0 || Toks[Pos - 1].Line < tok().Line;
      if (FirstOnLine &&
          (isTopKeyword(tok()) || (Braces <= 0 && isSpaceKeyword(tok()))))
        return;
      if (at(Tok::LBrace))
        ++Braces;
      else if (at(Tok::RBrace))
        --Braces;
      consume();
    }
  }

  /// Skips to the next statement: an identifier on a later line than the
  /// error, or the '}' closing the current block.
  void syncStmt(std::size_t Start) {
    const int ErrLine = tok().Line;
    int Braces = 0;
    bool Moved = Pos != Start;
    while (!at(Tok::Eof)) {
      if (Braces == 0 && (at(Tok::RBrace) || isTopKeyword(tok())) &&
          (Moved || at(Tok::RBrace)))
        return;
      if (Braces == 0 && Moved && at(Tok::Ident) && tok().Line > ErrLine)
        return;
      if (at(Tok::LBrace))
        ++Braces;
      else if (at(Tok::RBrace))
        --Braces;
      consume();
      Moved = true;
    }
  }

  //===-- Declarations
  //------------------------------------------------------===//

  /// topdecl ::= target | machine | param | permdecl | arraydecl | kernel
  ///             | launch
  void parseTopDecl() {
    if (atWord("target"))
      return parseTarget();
    if (atWord("machine"))
      return parseMachine();
    if (atWord("param"))
      return parseParam();
    if (atWord("permutation"))
      return parsePermutation();
    if (isSpaceKeyword(tok())) {
      Array A = parseArrayDecl();
      return S.actOnArray(std::move(A));
    }
    if (atWord("kernel"))
      return parseKernel();
    if (atWord("launch"))
      return parseLaunch();
    failExpected("a declaration (target, machine, param, permutation, "
                 "an array, kernel or launch)");
  }

  /// launch ::= 'launch' IDENT '=' IDENT {',' IDENT}
  void parseLaunch() {
    consume();
    Launch L;
    const Token Name = expectName("a launch name");
    L.Name = Name.Text;
    L.Loc = loc(Name);
    expect(Tok::Assign, "after the launch name");
    do
      L.Kernels.push_back(expectName("a kernel name").Text);
    while (at(Tok::Comma) && (consume(), true));
    S.actOnLaunch(std::move(L));
  }

  /// target ::= 'target' IDENT
  void parseTarget() {
    Machine M;
    M.Loc = loc(consume());
    M.Kind = MachineKind::Target;
    M.Target = expectName("a target name such as 'sm_90'").Text;
    S.actOnMachine(std::move(M));
  }

  /// machine ::= 'machine' ('dmm' | 'umm' | 'hmm') '(' [IDENT ':' expr
  ///             {',' IDENT ':' expr}] ')'
  void parseMachine() {
    Machine M;
    M.Loc = loc(consume());
    const Token Kind = expectName("a machine (dmm, umm or hmm)");
    if (Kind.Text == "dmm")
      M.Kind = MachineKind::Dmm;
    else if (Kind.Text == "umm")
      M.Kind = MachineKind::Umm;
    else if (Kind.Text == "hmm")
      M.Kind = MachineKind::Hmm;
    else
      fail(Kind, fmt::format("unknown machine '{}'; expected dmm, umm or hmm",
                             Kind.Text));
    expect(Tok::LParen, "after the machine name");
    if (!at(Tok::RParen)) {
      do {
        MachineArg A;
        const Token Name = expectName("a machine parameter name");
        A.Name = Name.Text;
        A.Loc = loc(Name);
        expect(Tok::Colon, "after the parameter name");
        A.Value = parseExpr();
        M.Args.push_back(std::move(A));
      } while (at(Tok::Comma) && (consume(), true));
    }
    expect(Tok::RParen, "to close the machine parameters");
    S.actOnMachine(std::move(M));
  }

  /// param ::= 'param' IDENT ['=' expr] ['where' expr]
  void parseParam() {
    consume();
    Param P;
    const Token Name = expectName("a parameter name");
    P.Name = Name.Text;
    P.Loc = loc(Name);
    if (at(Tok::Assign)) {
      consume();
      P.Init = parseExpr();
    }
    if (atWord("where")) {
      consume();
      P.Where = parseExpr();
    }
    S.actOnParam(std::move(P));
  }

  /// permdecl ::= 'permutation' IDENT '=' permexpr
  /// permexpr ::= '[' expr {',' expr} ']' | 'file' '(' STRING ')'
  ///            | ('identity' | 'shuffle' | 'bitreverse') '(' expr ')'
  ///            | ('transpose' | 'stride') '(' expr ',' expr ')'
  ///            | 'random' '(' expr ',' 'seed' ':' expr ')'
  ///            | ('schedule_src' | 'schedule_dst') '(' IDENT ',' 'w' ':' expr
  ///            ')'
  ///            | ('hmm_src' | 'hmm_dst') '(' (IDENT | 'inverse' '(' IDENT ')')
  ///              ',' 'pass' ':' expr [',' 'bytes' ':' expr] ')'
  void parsePermutation() {
    consume();
    Permutation P;
    const Token Name = expectName("a permutation name");
    P.Name = Name.Text;
    P.Loc = loc(Name);
    expect(Tok::Assign, "after the permutation name");
    if (at(Tok::LBrack)) {
      consume();
      P.Kind = PermKind::List;
      do
        P.Args.push_back(parseExpr());
      while (at(Tok::Comma) && (consume(), true));
      expect(Tok::RBrack, "to close the permutation list");
      return S.actOnPermutation(std::move(P));
    }
    const Token Kind = expectName("a permutation such as 'identity(n)'");
    static constexpr std::array<std::pair<std::string_view, PermKind>, 11> Kinds{
        {{"identity", PermKind::Identity},
         {"shuffle", PermKind::Shuffle},
         {"bitreverse", PermKind::Bitreverse},
         {"transpose", PermKind::Transpose},
         {"stride", PermKind::Stride},
         {"random", PermKind::Random},
         {"file", PermKind::File},
         {"schedule_src", PermKind::ScheduleSrc},
         {"schedule_dst", PermKind::ScheduleDst},
         {"hmm_src", PermKind::HmmSrc},
         {"hmm_dst", PermKind::HmmDst}}};
    auto It = std::find_if(Kinds.begin(), Kinds.end(),
                           [&](const auto &K) { return K.first == Kind.Text; });
    if (It == Kinds.end())
      fail(Kind, fmt::format("unknown permutation '{}'; expected identity, "
                             "shuffle, bitreverse, transpose, stride, random, "
                             "file, schedule_src, schedule_dst, hmm_src, "
                             "hmm_dst or a list "
                             "'[...]'",
                             Kind.Text));
    P.Kind = It->second;
    expect(Tok::LParen, fmt::format("after '{}'", Kind.Text));
    switch (P.Kind) {
    case PermKind::File: {
      if (!at(Tok::String))
        failExpected("a file name string");
      P.Path = consume().Text;
      break;
    }
    case PermKind::ScheduleSrc:
    case PermKind::ScheduleDst:
      P.Base = expectName("the permutation to schedule").Text;
      expect(Tok::Comma, "after the permutation");
      expectWord("w");
      expect(Tok::Colon, "after 'w'");
      P.Args.push_back(parseExpr());
      break;
    case PermKind::HmmSrc:
    case PermKind::HmmDst:
      if (atWord("inverse")) {
        consume();
        expect(Tok::LParen, "after 'inverse'");
        P.Base = expectName("the permutation to schedule").Text;
        P.BaseInverse = true;
        expect(Tok::RParen, "to close 'inverse('");
      } else {
        P.Base = expectName("the permutation to schedule").Text;
      }
      expect(Tok::Comma, "after the permutation");
      expectWord("pass");
      expect(Tok::Colon, "after 'pass'");
      P.Args.push_back(parseExpr());
      if (at(Tok::Comma)) {
        consume();
        expectWord("bytes");
        expect(Tok::Colon, "after 'bytes'");
        P.Args.push_back(parseExpr());
      }
      break;
    case PermKind::Random:
      P.Args.push_back(parseExpr());
      expect(Tok::Comma, "after the length");
      expectWord("seed");
      expect(Tok::Colon, "after 'seed'");
      P.Args.push_back(parseExpr());
      break;
    default: {
      const std::size_t Want =
          P.Kind == PermKind::Transpose || P.Kind == PermKind::Stride ? 2 : 1;
      const Token First = tok();
      do
        P.Args.push_back(parseExpr());
      while (at(Tok::Comma) && (consume(), true));
      if (P.Args.size() != Want)
        fail(First, fmt::format("'{}' takes {} argument{}, got {}", Kind.Text,
                                Want, Want == 1 ? "" : "s", P.Args.size()));
    }
    }
    expect(Tok::RParen, fmt::format("to close '{}('", Kind.Text));
    S.actOnPermutation(std::move(P));
  }

  /// arraydecl ::= space IDENT ':' arraytype
  Array parseArrayDecl() {
    Array A;
    A.Space = parseSpace();
    const Token Name = expectName("an array name");
    A.Name = Name.Text;
    A.Loc = loc(Name);
    expect(Tok::Colon, "after the array name");
    parseArrayType(A);
    return A;
  }

  /// space ::= 'global' | 'shared' | 'local'
  MemSpace parseSpace() {
    if (!isSpaceKeyword(tok()))
      failExpected("a memory space (global, shared or local)");
    const std::string W = consume().Text;
    return W == "global"   ? MemSpace::Global
           : W == "shared" ? MemSpace::Shared
                           : MemSpace::Local;
  }

  /// arraytype ::= ELEMTYPE '[' expr ']' {'[' expr ']'}
  ///               {'layout' layout | 'holds' permref}
  /// A shared array with no layout gets `layout auto`. Needs A.Space.
  void parseArrayType(Array &A) {
    const Token Type = expectName("an element type such as 'f32'");
    auto Elem = parseElemType(Type.Text);
    if (!Elem)
      fail(Type, fmt::format("unknown element type '{}'; expected i8, i16, "
                             "i32, i64, u8, u16, u32, u64, f16, bf16, f32, "
                             "f64 or a vector such as f32x4",
                             Type.Text));
    A.Elem = *Elem;
    if (!at(Tok::LBrack))
      failExpected(fmt::format("'[' and the dimensions of '{}'", A.Name));
    while (at(Tok::LBrack)) {
      consume();
      A.Dims.push_back(parseExpr());
      expect(Tok::RBrack, "after the dimension");
    }
    bool SawLayout = false;
    while (atWord("layout") || atWord("holds")) {
      const Token Attr = consume();
      if (Attr.Text == "layout") {
        if (SawLayout)
          fail(Attr, fmt::format("array '{}' has two layouts", A.Name));
        SawLayout = true;
        A.Lay = parseLayout();
      } else {
        if (A.Holds)
          fail(Attr, fmt::format("array '{}' has two 'holds' clauses", A.Name));
        A.Holds = parsePermRef();
      }
    }
    // Shared arrays without a layout let bankwise choose (issue [3]).
    if (!SawLayout && A.Space == MemSpace::Shared)
      A.Lay.Kind = LayoutKind::Auto;
  }

  /// layout ::= 'raw' | 'xor' | 'diagonal' | 'auto' | 'pad' '(' expr ')'
  ///          | 'rap' '(' 'seed' ':' expr ')'
  Layout parseLayout() {
    const Token Name = expectName("a layout (raw, pad, xor, diagonal, rap or "
                                  "auto)");
    Layout L;
    if (Name.Text == "raw") {
      L.Kind = LayoutKind::Raw;
    } else if (Name.Text == "xor") {
      L.Kind = LayoutKind::Xor;
    } else if (Name.Text == "diagonal") {
      L.Kind = LayoutKind::Diagonal;
    } else if (Name.Text == "auto") {
      L.Kind = LayoutKind::Auto;
    } else if (Name.Text == "pad") {
      L.Kind = LayoutKind::Pad;
      expect(Tok::LParen, "after 'pad'");
      L.Arg = parseExpr();
      expect(Tok::RParen, "after the padding");
    } else if (Name.Text == "rap") {
      L.Kind = LayoutKind::Rap;
      expect(Tok::LParen, "after 'rap'");
      expectWord("seed");
      expect(Tok::Colon, "after 'seed'");
      L.Arg = parseExpr();
      expect(Tok::RParen, "after the seed");
    } else {
      fail(Name, fmt::format("unknown layout '{}'; expected raw, pad(k), xor, "
                             "diagonal, rap(seed: s) or auto",
                             Name.Text));
    }
    return L;
  }

  /// permref ::= IDENT | 'inverse' '(' IDENT ')'
  PermRef parsePermRef() {
    PermRef R;
    if (atWord("inverse")) {
      consume();
      expect(Tok::LParen, "after 'inverse'");
      R.Perm = expectName("a permutation name").Text;
      expect(Tok::RParen, "after the permutation name");
      R.Inverse = true;
      return R;
    }
    R.Perm = expectName("a permutation name").Text;
    return R;
  }

  /// kernel ::= 'kernel' IDENT '(' [kparam {',' kparam}] ')' geometry
  ///              ['schedule' ('colored' | 'bits')] block
  /// kparam ::= IDENT ':' space arraytype
  void parseKernel() {
    consume();
    Kernel K;
    const Token Name = expectName("a kernel name");
    K.Name = Name.Text;
    K.Loc = loc(Name);
    expect(Tok::LParen, "after the kernel name");
    if (!at(Tok::RParen)) {
      do {
        Array A;
        const Token PName = expectName("a parameter name");
        A.Name = PName.Text;
        A.Loc = loc(PName);
        expect(Tok::Colon, "after the parameter name");
        A.Space = parseSpace();
        parseArrayType(A);
        K.Params.push_back(std::move(A));
      } while (at(Tok::Comma) && (consume(), true));
    }
    expect(Tok::RParen, "to close the kernel parameters");
    K.Geo = parseGeometry();
    if (atWord("schedule")) {
      consume();
      const Token How = expectName("a schedule ('colored', 'bits' or 'auto')");
      if (How.Text == "colored")
        K.Schedule = KernelSchedule::Colored;
      else if (How.Text == "bits")
        K.Schedule = KernelSchedule::Bits;
      else if (How.Text == "auto")
        K.Schedule = KernelSchedule::Auto;
      else
        fail(How, fmt::format("unknown schedule '{}'; expected 'colored', 'bits' or 'auto'", How.Text));
    }
    parseBlock(K.Body);
    S.actOnKernel(std::move(K));
  }

  /// geometry ::= 'threads' expr | 'grid' tuple 'block' tuple
  Geometry parseGeometry() {
    Geometry G;
    G.Loc = loc(tok());
    if (atWord("threads")) {
      consume();
      G.IsThreads = true;
      G.Block.push_back(parseExpr());
      return G;
    }
    if (!atWord("grid"))
      failExpected("'threads p' or 'grid (...) block (...)'");
    consume();
    G.Grid = parseTuple("grid");
    expectWord("block");
    G.Block = parseTuple("block");
    return G;
  }

  /// tuple ::= '(' expr [',' expr [',' expr]] ')'
  std::vector<Expr> parseTuple(std::string_view What) {
    const Token Open = expect(Tok::LParen, fmt::format("after '{}'", What));
    std::vector<Expr> Es;
    do
      Es.push_back(parseExpr());
    while (at(Tok::Comma) && (consume(), true));
    expect(Tok::RParen, fmt::format("to close the {} dimensions", What));
    if (Es.size() > 3)
      fail(Open,
           fmt::format("{} takes 1 to 3 dimensions, got {}", What, Es.size()));
    return Es;
  }

  //===-- Statements
  //--------------------------------------------------------===//

  /// block ::= '{' {stmt [';']} '}'
  void parseBlock(Block &Out) {
    Nest N(*this);
    const Token Open = expect(Tok::LBrace);
    while (!at(Tok::RBrace) && !at(Tok::Eof) && !isTopKeyword(tok())) {
      const std::size_t Start = Pos;
      try {
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

  /// stmt ::= 'let' IDENT [':' ELEMTYPE] '=' expr
  ///        | 'for' IDENT 'in' expr '..' expr ['step' expr] block
  ///        | 'while' expr block
  ///        | 'if' expr block ['else' (block | stmt_if)]
  ///        | 'sync'
  ///        | space IDENT ':' arraytype
  ///        | IDENT {'[' expr ']'} ('=' | ASSIGNOP) expr
  /// ASSIGNOP is one of '+=' '-=' '*=' '/=' '%=' '<<=' '>>=' '&=' '|=' '^='.
  /// CUDA's `float x = e`, `++i` and `i++` are errors naming the DSL's
  /// spelling, read as it so that parsing goes on.
  Stmt parseStmt() {
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
    } else if (at(Tok::Ident) && !isReserved(tok().Text)) {
      St.Node = parseAssignment(nullptr);
    } else {
      failExpected("a statement");
    }
    return St;
  }

  /// The assignment of stmt: IDENT {'[' expr ']'} ('=' | ASSIGNOP) expr.
  /// `t op= v` becomes `t = t op v` with Assign::Compound set. Prefix is a
  /// '++' or '--' already read (CUDA's `++i`); `i++` is read here.
  Assign parseAssignment(const Token *Prefix) {
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

  /// At CUDA's `++` or `--`: two '+' or two '-' written together. (They are
  /// not tokens: `--x` in an expression stays `-(-x)`.)
  bool atIncrement() const {
    return (at(Tok::Plus) || at(Tok::Minus)) && tok(1).Kind == tok().Kind && tok(1).Line == tok().Line &&
           tok(1).Col == tok().Col + 1;
  }
  /// Reads the `++` or `--` atIncrement saw: its first token, Text "++"/"--".
  Token consumeIncrement() {
    Token Op = consume();
    consume();
    Op.Text += Op.Text;
    return Op;
  }

  /// The operator of a compound assignment token: "+=" -> Add, "<<=" -> Shl.
  static BinaryOp compoundOp(std::string_view Text) {
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

  /// CUDA's scalar type words that start a declaration (`float x = 0`):
  /// the DSL's element type for them, "" for `auto` (an untyped let).
  static std::optional<std::string_view> cudaLocalType(const Token &T) {
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

  /// An error that the parser reads past (a CUDA spelling it understood).
  void report(const Token &At, std::string Msg) {
    Src.error(Diags, loc(At), std::move(Msg));
    if (Src.capped())
      throw Abort{};
  }

  /// stmt_if ::= 'if' expr block ['else' (block | stmt_if)]
  If parseIf(bool IsElseIf) {
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

  //===-- Expressions
  //-------------------------------------------------------===//

  /// expr ::= binary(1) ['?' expr ':' expr]
  /// The '?:' is the loosest operator and associates to the right:
  /// `a ? b : c ? d : e` is `a ? b : (c ? d : e)`.
  Expr parseExpr() {
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

  /// binary(k) ::= unary {op(j) binary(j+1)} for operators of level j >= k,
  /// loosest first: op(1) '||', op(2) '&&', op(3) '|', op(4) '^', op(5) '&',
  /// op(6) '==' '!=', op(7) '<' '<=' '>' '>=', op(8) '<<' '>>',
  /// op(9) '+' '-', op(10) '*' '/' '%'; all left-associative. (Precedence
  /// climbing: a few stack frames per nesting level, not one per level.)
  Expr parseBinary(int MinLevel) {
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

  /// unary ::= '-' INT | ('-' | '!' | '~') unary | primary
  Expr parseUnary() {
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

  /// primary ::= INT | FLOAT | '(' expr ')' | builtin | GEOMETRY
  ///           | FUNCTION '(' expr {',' expr} ')'
  ///           | 'inverse' '(' IDENT ')' '(' expr ')'
  ///           | IDENT '(' expr ')'             (permutation application)
  ///           | IDENT {'[' expr ']'}           (variable or array read)
  Expr parsePrimary() {
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

  /// args ::= '(' [expr {',' expr}] ')'; LastHeight becomes the tallest.
  std::vector<Expr> parseArgs() {
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

  Expr parsePermApply(const Token &Perm, bool Inverse, const Token &Start) {
    std::vector<Expr> Args = parseArgs();
    if (Args.size() != 1)
      fail(Start, fmt::format("permutation '{}' takes 1 argument, got {}",
                              Perm.Text, Args.size()));
    setHeight(LastHeight + 1, Start);
    return Expr{PermApply{Perm.Text, Inverse, std::move(Args.front())},
                loc(Start)};
  }
};

} // namespace

Program parseProgram(std::string_view Source, const std::string &FileName,
                     DiagnosticEngine &Diags, const ParamOverrides &Overrides) {
  SourceFile Src(FileName, Source);
  Program Out;
  std::vector<Token> Toks = lex(Src, Diags);
  const bool SawTokens = Toks.size() > 1;
  Sema S(Src, Diags, Overrides, Out);
  if (!Src.capped()) {
    Parser P(Src, Diags, std::move(Toks), S);
    P.parseProgram();
  }
  if (!Src.capped())
    S.finish(SawTokens);
  if (Src.capped())
    Diags.error(SourceLoc{FileName, 0, 0},
                "too many errors emitted, stopping now");
  return Out;
}

Program parseFile(const std::string &Path, DiagnosticEngine &Diags,
                  const ParamOverrides &Overrides) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Diags.error(
        {}, fmt::format("cannot open '{}': {}", Path, std::strerror(errno)));
    return {};
  }
  std::ostringstream Buf;
  Buf << In.rdbuf();
  return parseProgram(Buf.str(), Path, Diags, Overrides);
}

} // namespace bankwise::dsl
