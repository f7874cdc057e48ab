// The .bw parser's program and top-level declarations (target, machine,
// param, permutation, arrays, kernels, launches) and its entry points; the
// parser itself is declared in detail/ParserImpl.h.
#include "dsl/Parser.h"

#include "dsl/detail/ParserImpl.h"
#include "ir/Sites.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bankwise::dsl {

namespace detail {

void Parser::parseTopDecl() {
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
  if (atWord("fn"))
    return parseFunction();
  if (atWord("instance"))
    return parseInstance();
  failExpected("a declaration (target, machine, param, permutation, "
               "an array, kernel, fn, instance or launch)");
}

void Parser::parseLaunch() {
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

void Parser::parseTarget() {
  Machine M;
  M.Loc = loc(consume());
  M.Kind = MachineKind::Target;
  M.Target = expectName("a target name such as 'sm_90'").Text;
  S.actOnMachine(std::move(M));
}

void Parser::parseMachine() {
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

void Parser::parseParam() {
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

void Parser::parsePermutation() {
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

Array Parser::parseArrayDecl() {
  Array A;
  A.Space = parseSpace();
  const Token Name = expectName("an array name");
  A.Name = Name.Text;
  A.Loc = loc(Name);
  expect(Tok::Colon, "after the array name");
  parseArrayType(A);
  return A;
}

MemSpace Parser::parseSpace() {
  if (!isSpaceKeyword(tok()))
    failExpected("a memory space (global, shared or local)");
  const std::string W = consume().Text;
  return W == "global"   ? MemSpace::Global
         : W == "shared" ? MemSpace::Shared
                         : MemSpace::Local;
}

void Parser::parseArrayType(Array &A) {
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

Layout Parser::parseLayout() {
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

PermRef Parser::parsePermRef() {
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

void Parser::parseKernel() {
  consume();
  Kernel K;
  const Token Name = expectName("a kernel name");
  if (at(Tok::Lt))
    return parseGenericKernel(Name);
  K.Name = Name.Text;
  K.Loc = loc(Name);
  Defs.CallsInKernel.clear();
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

Geometry Parser::parseGeometry() {
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

std::vector<Expr> Parser::parseTuple(std::string_view What) {
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

} // namespace detail

using namespace ir;

Program parseProgram(std::string_view Source, const std::string &FileName,
                     DiagnosticEngine &Diags, const ParamOverrides &Overrides) {
  SourceFile Src(FileName, Source);
  Program Out;
  std::vector<Token> Toks = lex(Src, Diags);
  const bool SawTokens = Toks.size() > 1;
  Sema S(Src, Diags, Overrides, Out);
  if (!Src.capped()) {
    detail::Parser P(Src, Diags, std::move(Toks), S);
    P.parseProgram();
  }
  if (!Src.capped())
    S.finish(SawTokens);
  ir::numberSites(Out);
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
