// Internal to dsl/: the recursive-descent parser of the .bw language
// (docs/language.md's grammar, each production at its method), shared by
// its sources: Parser.cpp (the program, its declarations and the entry
// points) and ParseStatements.cpp (blocks, statements and expressions).
#pragma once

#include "dsl/Lexer.h"
#include "dsl/Parser.h"
#include "dsl/Sema.h"
#include "ir/Printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise::dsl::detail {

using namespace ir;

/// Thrown after a syntax error has been reported; caught where parsing can
/// resume (a statement or a top-level declaration).
struct SyntaxError {};
/// Thrown to stop parsing altogether (nesting limit, too many errors).
struct Abort {};

inline bool isTopKeyword(const Token &T) {
  static constexpr std::array<std::string_view, 8> Words{
      "target", "machine", "param", "permutation", "kernel", "launch", "fn", "instance"};
  return T.Kind == Tok::Ident &&
         std::find(Words.begin(), Words.end(), T.Text) != Words.end();
}

inline bool isSpaceKeyword(const Token &T) {
  return T.Kind == Tok::Ident &&
         (T.Text == "global" || T.Text == "shared" || T.Text == "local");
}

inline std::optional<Builtin> builtinNamed(std::string_view Name) {
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

inline std::optional<Function> functionNamed(std::string_view Name) {
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
inline std::optional<BinaryOp> binaryOp(Tok K) {
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

/// Most tokens that expanding functions and generic kernels may add to a
/// file, so that nested expansions cannot grow without bound.
constexpr std::size_t MaxExpandedTokens = std::size_t{1} << 20;

/// A generic kernel, `kernel NAME<T: type, S: int = 32 / bytes(T)>(...)`:
/// its parameters and its tokens from '(' to the body's closing '}',
/// parsed once per `instance` with the arguments put in (ParseGenerics.cpp).
struct GenericKernel {
  struct Param {
    Token Name;
    bool IsType = false;
    std::vector<Token> Default; // empty: none
  };
  Token Name;
  std::vector<Param> Params;
  std::vector<Token> Rest;
  int Instances = 0;
};

/// A function, `fn NAME(a, b) = expr` or `fn NAME(a, b) { stmts }`: its
/// tokens, put in where it is called with the arguments for the
/// parameters (a macro with hygiene for its locals; ParseGenerics.cpp).
struct UserFunction {
  Token Name;
  std::vector<std::string> Params;
  bool IsBlock = false;
  /// The expression, or the block's statements without the braces.
  std::vector<Token> Body;
  /// Names the block declares (lets, loop variables, arrays), renamed at
  /// each call so that two calls in one kernel do not clash.
  std::vector<std::string> Locals;
  /// False when the body had errors: calls then expand to nothing.
  bool Valid = true;
};

/// What the parsers of one file share: the root parser and the parsers of
/// generic instances and constant arguments.
struct Definitions {
  std::map<std::string, GenericKernel, std::less<>> Generics;
  std::map<std::string, UserFunction, std::less<>> Functions;
  /// Calls of each function in the kernel being parsed (reset per kernel).
  std::map<std::string, int, std::less<>> CallsInKernel;
  std::size_t ExpandedTokens = 0;
};

class Parser {
public:
  Parser(const SourceFile &Src, DiagnosticEngine &Diags,
         std::vector<Token> Toks, Sema &S)
      : Src(Src), Diags(Diags), Toks(std::move(Toks)), S(S),
        Owned(std::make_unique<Definitions>()), Defs(*Owned) {}
  /// A parser of Toks (ending in Eof) that shares Parent's file, Sema and
  /// definitions: an instance of a generic kernel, a constant argument.
  Parser(const Parser &Parent, std::vector<Token> Toks)
      : Src(Parent.Src), Diags(Parent.Diags), Toks(std::move(Toks)), S(Parent.S),
        Defs(Parent.Defs), Depth(Parent.Depth) {}

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
      warnUninstantiated();
    } catch (Abort &) {
    }
  }

private:
  const SourceFile &Src;
  DiagnosticEngine &Diags;
  std::vector<Token> Toks;
  Sema &S;
  std::unique_ptr<Definitions> Owned; // the root parser's
  Definitions &Defs;
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
  void parseTopDecl();

  /// launch ::= 'launch' IDENT '=' IDENT {',' IDENT}
  void parseLaunch();

  /// target ::= 'target' IDENT
  void parseTarget();

  /// machine ::= 'machine' ('dmm' | 'umm' | 'hmm') '(' [IDENT ':' expr
  ///             {',' IDENT ':' expr}] ')'
  void parseMachine();

  /// param ::= 'param' IDENT ['=' expr] ['where' expr]
  void parseParam();

  /// permdecl ::= 'permutation' IDENT '=' permexpr
  /// permexpr ::= '[' expr {',' expr} ']' | 'file' '(' STRING ')'
  ///            | ('identity' | 'shuffle' | 'bitreverse') '(' expr ')'
  ///            | ('transpose' | 'stride') '(' expr ',' expr ')'
  ///            | 'random' '(' expr ',' 'seed' ':' expr ')'
  ///            | ('schedule_src' | 'schedule_dst') '(' IDENT ',' 'w' ':' expr
  ///            ')'
  ///            | ('hmm_src' | 'hmm_dst') '(' (IDENT | 'inverse' '(' IDENT ')')
  ///              ',' 'pass' ':' expr [',' 'bytes' ':' expr] ')'
  void parsePermutation();

  /// arraydecl ::= space IDENT ':' arraytype
  Array parseArrayDecl();

  /// space ::= 'global' | 'shared' | 'local'
  MemSpace parseSpace();

  /// arraytype ::= ELEMTYPE '[' expr ']' {'[' expr ']'}
  ///               {'layout' layout | 'holds' permref}
  /// A shared array with no layout gets `layout auto`. Needs A.Space.
  void parseArrayType(Array &A);

  /// layout ::= 'raw' | 'xor' | 'diagonal' | 'auto' | 'pad' '(' expr ')'
  ///          | 'rap' '(' 'seed' ':' expr ')'
  Layout parseLayout();

  /// permref ::= IDENT | 'inverse' '(' IDENT ')'
  PermRef parsePermRef();

  /// kernel ::= 'kernel' IDENT '(' [kparam {',' kparam}] ')' geometry
  ///              ['schedule' ('colored' | 'bits')] block
  /// kparam ::= IDENT ':' space arraytype
  void parseKernel();

  //===-- Generic kernels and functions (ParseGenerics.cpp)
  //-------------------===//

  /// generic ::= 'kernel' IDENT '<' gparam {',' gparam} '>' '(' ... block
  /// gparam  ::= IDENT ':' ('type' | 'int') ['=' TOKENS]
  /// At '<' after the kernel's name: records the kernel's tokens; each
  /// `instance` parses them with its arguments put in. A default is the
  /// tokens up to the next ',' or '>' outside parentheses, and may use the
  /// parameters before it.
  void parseGenericKernel(const Token &Name);

  /// instance ::= 'instance' inst {',' inst}
  /// inst     ::= [IDENT '='] IDENT '<' garg {',' garg} '>'
  /// garg     ::= ELEMTYPE | expr (a constant)
  /// Each inst is a kernel named as written, or NAME_arg1_arg2 (negative
  /// integers as m5): transpose<f32> is the kernel transpose_f32.
  void parseInstance();

  /// function ::= 'fn' IDENT '(' [IDENT {',' IDENT}] ')' ('=' expr | block)
  void parseFunction();

  /// The function named T's text, or nullptr.
  const UserFunction *functionAt(const Token &T) const;

  /// At a call of F, `F(args)`: reads the arguments and puts F's body in
  /// the call's place, each parameter replaced by its argument (in
  /// parentheses unless one token) and, for a block, each local renamed.
  /// Pos is left at the expansion's first token.
  void expandCall(const UserFunction &F);

  /// Tokens added by expansion, against MaxExpandedTokens.
  void countExpansion(std::size_t N, const Token &At);

  /// Generic kernels never instantiated: a warning each.
  void warnUninstantiated();

  /// geometry ::= 'threads' expr | 'grid' tuple 'block' tuple
  Geometry parseGeometry();

  /// tuple ::= '(' expr [',' expr [',' expr]] ')'
  std::vector<Expr> parseTuple(std::string_view What);

  //===-- Statements
  //--------------------------------------------------------===//

  /// block ::= '{' {stmt [';']} '}'
  void parseBlock(Block &Out);

  /// stmt ::= 'let' IDENT [':' ELEMTYPE] '=' expr
  ///        | 'for' IDENT 'in' expr '..' expr ['step' expr] block
  ///        | 'while' expr block
  ///        | 'if' expr block ['else' (block | stmt_if)]
  ///        | 'sync'
  ///        | space IDENT ':' arraytype
  ///        | IDENT {'[' expr ']'} ('=' | ASSIGNOP) expr
  ///        | atomic                     (its old value dropped)
  ///        | view
  /// ASSIGNOP is one of '+=' '-=' '*=' '/=' '%=' '<<=' '>>=' '&=' '|=' '^='.
  /// CUDA's `float x = e`, `++i` and `i++` are errors naming the DSL's
  /// spelling, read as it so that parsing goes on.
  Stmt parseStmt();

  /// The assignment of stmt: IDENT {'[' expr ']'} ('=' | ASSIGNOP) expr.
  /// `t op= v` becomes `t = t op v` with Assign::Compound set. Prefix is a
  /// '++' or '--' already read (CUDA's `++i`); `i++` is read here.
  Assign parseAssignment(const Token *Prefix);

  /// At CUDA's `++` or `--`: two '+' or two '-' written together. (They are
  /// not tokens: `--x` in an expression stays `-(-x)`.)
  bool atIncrement() const;
  /// Reads the `++` or `--` atIncrement saw: its first token, Text "++"/"--".
  Token consumeIncrement();

  /// The operator of a compound assignment token: "+=" -> Add, "<<=" -> Shl.
  static BinaryOp compoundOp(std::string_view Text);

  /// CUDA's scalar type words that start a declaration (`float x = 0`):
  /// the DSL's element type for them, "" for `auto` (an untyped let).
  static std::optional<std::string_view> cudaLocalType(const Token &T);

  /// An error that the parser reads past (a CUDA spelling it understood).
  void report(const Token &At, std::string Msg);

  /// stmt_if ::= 'if' expr block ['else' (block | stmt_if)]
  If parseIf(bool IsElseIf);

  //===-- Expressions
  //-------------------------------------------------------===//

  /// expr ::= binary(1) ['?' expr ':' expr]
  /// The '?:' is the loosest operator and associates to the right:
  /// `a ? b : c ? d : e` is `a ? b : (c ? d : e)`.
  Expr parseExpr();

  /// binary(k) ::= unary {op(j) binary(j+1)} for operators of level j >= k,
  /// loosest first: op(1) '||', op(2) '&&', op(3) '|', op(4) '^', op(5) '&',
  /// op(6) '==' '!=', op(7) '<' '<=' '>' '>=', op(8) '<<' '>>',
  /// op(9) '+' '-', op(10) '*' '/' '%'; all left-associative. (Precedence
  /// climbing: a few stack frames per nesting level, not one per level.)
  Expr parseBinary(int MinLevel);

  /// unary ::= '-' INT | ('-' | '!' | '~') unary | primary
  Expr parseUnary();

  /// primary ::= INT | FLOAT | '(' expr ')' | builtin | GEOMETRY
  ///           | FUNCTION '(' expr {',' expr} ')'
  ///           | 'inverse' '(' IDENT ')' '(' expr ')'
  ///           | IDENT '(' expr ')'             (permutation application)
  ///           | IDENT {'[' expr ']'}           (variable or array read)
  ///           | atomic | shuffle
  Expr parsePrimary();

  /// args ::= '(' [expr {',' expr}] ')'; LastHeight becomes the tallest.
  std::vector<Expr> parseArgs();

  Expr parsePermApply(const Token &Perm, bool Inverse, const Token &Start);

  //===-- CUDA's memory and warp operations (ParseCuda.cpp)
  //----------------===//

  /// At an atomic's name (`atomic_add`, or CUDA's `atomicAdd`) followed by
  /// '(': a statement that is an expression (stmt ::= expr).
  bool atIntrinsicCall() const;

  /// The call at T when T names an atomic or a warp shuffle, in the DSL's
  /// spelling or CUDA's (an error naming the DSL's, read as it); nullopt
  /// for other names.
  std::optional<Expr> parseIntrinsic(const Token &T);

  /// shuffle ::= SHUFFLE '(' expr ',' expr ')'; CUDA's `__shfl_xor_sync(mask,
  /// v, m [, width])` (Cuda) is read as `shfl_xor(v, m)` after its error.
  Expr parseShuffle(const Token &Name, ShuffleOp Op, bool Cuda);

  /// view ::= 'view' IDENT '=' IDENT 'as' ELEMTYPE (a vector type); Sema
  /// gives it its base's space and its shape.
  Array parseView();

  /// atomic ::= ATOMIC '(' expr ',' expr [',' expr] ')', its first argument
  /// an element a[i]...; CUDA's `atomicAdd(&a[i], v)` (Cuda) is read the
  /// same after its error.
  Expr parseAtomic(const Token &Name, AtomicOp Op, bool Cuda);
};

} // namespace bankwise::dsl::detail
