// Unit tests of the IR: evaluation semantics, printing, equality, closed-form
// permutations and -D parsing.
#include "TestUtil.h"
#include "ir/Eval.h"
#include "ir/Printer.h"

#include <doctest/doctest.h>

#include <set>

using namespace bankwise;
using namespace bankwise::ir;

namespace {

/// Parses E as a local's initializer (the front end may already report a
/// constant error in it) and evaluates it.
EvalResult evalText(const std::string &E) {
  test::Parsed P =
      test::parse("param X = 0\nkernel k() threads 1 { let v = " + E + " }\n");
  REQUIRE(P.Program.Kernels.size() == 1);
  const auto &L = *P.Program.Kernels[0].Body[0].as<Let>();
  return evaluate(L.Init, {});
}

std::int64_t value(const std::string &E) {
  EvalResult R = evalText(E);
  REQUIRE_MESSAGE(R.ok(), R.Message);
  return R.Value;
}

Expr parseExpr(const std::string &E) {
  test::Parsed P =
      test::parse("kernel k(a: global i32[8], b: global i32[8][8]) "
                  "threads 1 { let x = 1\nlet v = " +
                  E + " }\n");
  REQUIRE_MESSAGE(!P.Diags.hasErrors(), test::render(P.Diags));
  return P.Program.Kernels[0].Body[1].as<Let>()->Init;
}

} // namespace

TEST_CASE("division and modulo round toward negative infinity") {
  CHECK(value("7 / 2") == 3);
  CHECK(value("-7 / 2") == -4);
  CHECK(value("7 / -2") == -4);
  CHECK(value("-7 % 2") == 1);
  CHECK(value("7 % -2") == -1);
  CHECK(value("(3 - 5) % 32") == 30); // the papers' (t - i) mod w
  CHECK(value("-9223372036854775808 % -1") == 0);
}

TEST_CASE("checked arithmetic reports overflow instead of wrapping") {
  CHECK(value("9223372036854775807 + 0") == INT64_MAX);
  CHECK(value("-9223372036854775808") == INT64_MIN);
  CHECK(evalText("9223372036854775807 + 1").Message ==
        "integer overflow: 9223372036854775807 + 1 does not fit in 64 bits");
  CHECK(evalText("-9223372036854775808 / -1").St == EvalResult::Status::Error);
  CHECK(evalText("-(-9223372036854775808)").St == EvalResult::Status::Error);
  CHECK(evalText("3037000500 * 3037000500").St == EvalResult::Status::Error);
  CHECK(value("1 << 62") == (std::int64_t{1} << 62));
  CHECK(value("-1 << 63") == INT64_MIN);
  CHECK(evalText("1 << 63").St == EvalResult::Status::Error);
  CHECK(evalText("1 << -1").Message ==
        "shift amount -1 is out of range [0, 63]");
  CHECK(value("-8 >> 1") == -4);
  CHECK(evalText("1 / 0").Message == "division by zero");
  CHECK(evalText("1 % 0").Message == "modulo by zero");
}

TEST_CASE("logic, comparisons and built-in functions") {
  CHECK(value("3 < 4") == 1);
  CHECK(value("3 == 4 || 2 != 2") == 0);
  CHECK(value("0 && 1 / 0") == 0); // short-circuit: no division
  CHECK(value("1 || 1 / 0") == 1);
  CHECK(value("!5") == 0);
  CHECK(value("~0") == -1);
  CHECK(value("1 + 2 * 3 << 1") == 14);
  CHECK(value("6 & 3 ^ 1 | 8") == 11);
  CHECK(value("min(3, -4) + max(3, -4)") == -1);
  CHECK(value("log2(1)") == 0);
  CHECK(value("log2(1000)") == 9);
  CHECK(value("bitrev(1, 4)") == 8);
  CHECK(value("bitrev(6, 3)") == 3);
  CHECK(value("bitrev(5, 0)") == 0);
  CHECK(evalText("log2(-1)").Message == "log2 of non-positive value -1");
  CHECK(evalText("bitrev(1, 64)").Message ==
        "bitrev width 64 is out of range [0, 63]");
}

TEST_CASE(
    "evaluate asks its hooks for thread built-ins, reads and permutations") {
  const Expr Read = parseExpr("b[tid / 8][tid % 8] + a[x]");
  EvalHooks Hooks;
  Hooks.BuiltinValue = [](Builtin B) -> std::optional<std::int64_t> {
    return B == Builtin::Tid ? std::optional<std::int64_t>(19) : std::nullopt;
  };
  Hooks.Var = [](const VarRef &V) -> std::optional<std::int64_t> {
    return V.Name == "x" ? std::optional<std::int64_t>(5) : std::nullopt;
  };
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> Reads;
  Hooks.Read =
      [&](const std::string &A,
          const std::vector<std::int64_t> &I) -> std::optional<std::int64_t> {
    Reads.emplace_back(A, I);
    return 100;
  };
  EvalResult R = evaluate(Read, Hooks);
  REQUIRE(R.ok());
  CHECK(R.Value == 200);
  CHECK(Reads[0] ==
        std::pair<std::string, std::vector<std::int64_t>>{"b", {2, 3}});
  CHECK(Reads[1] ==
        std::pair<std::string, std::vector<std::int64_t>>{"a", {5}});

  EvalResult NoHooks = evaluate(Read, {});
  CHECK(NoHooks.St == EvalResult::Status::NotConstant);
  CHECK(NoHooks.Message == "thread built-in 'tid' is not a constant");
}

TEST_CASE("evalConstant reports into a DiagnosticEngine") {
  DiagnosticEngine Diags;
  const Expr E = makeBinary(BinaryOp::Div, makeVar("N", VarKind::Param),
                            makeInt(0), SourceLoc{"x.bw", 3, 7});
  CHECK(!evalConstant(E, {{"N", 4}}, Diags));
  REQUIRE(Diags.numErrors() == 1);
  CHECK(Diags.diagnostics()[0].Message == "division by zero");
  CHECK(Diags.diagnostics()[0].Loc == SourceLoc{"x.bw", 3, 7});
  CHECK(evalConstant(
            makeBinary(BinaryOp::Mul, makeVar("N", VarKind::Param), makeInt(3)),
            {{"N", 4}}, Diags) == 12);
}

TEST_CASE("the printer uses the fewest parentheses that keep the tree") {
  CHECK(print(parseExpr("(1 + 2) * 3")) == "(1 + 2) * 3");
  CHECK(print(parseExpr("1 + (2 * 3)")) == "1 + 2 * 3");
  CHECK(print(parseExpr("1 - (2 - 3)")) == "1 - (2 - 3)");
  CHECK(print(parseExpr("(1 - 2) - 3")) == "1 - 2 - 3");
  CHECK(print(parseExpr("-(5)")) == "-(5)");
  CHECK(print(parseExpr("-5")) == "-5");
  CHECK(print(parseExpr("- -x")) == "-(-x)");
  CHECK(print(parseExpr("-(x + 1) * 2")) == "-(x + 1) * 2");
  CHECK(print(parseExpr("(x & 1) == 0")) == "(x & 1) == 0");
  CHECK(print(parseExpr("x & 1 == 0")) == "x & 1 == 0");
  CHECK(print(parseExpr("b[a[x % 8]][min(x, 7)]")) == "b[a[x % 8]][min(x, 7)]");
}

TEST_CASE("IR equality is deep and ignores source locations") {
  Expr A = makeBinary(BinaryOp::Add, makeInt(1, {"a.bw", 1, 1}), makeInt(2),
                      {"a.bw", 1, 3});
  Expr B = makeBinary(BinaryOp::Add, makeInt(1), makeInt(2), {"b.bw", 9, 9});
  CHECK(A == B);
  Expr C = A; // deep copy
  C.as<Binary>()->Rhs->as<IntLit>()->Value = 3;
  CHECK(!(A == C));
  CHECK(A.as<Binary>()->Rhs->as<IntLit>()->Value == 2);
}

TEST_CASE("closed-form permutations are bijections with the documented maps") {
  test::Parsed P = test::parse(
      "permutation I = identity(16)\npermutation Sh = shuffle(16)\n"
      "permutation Br = bitreverse(16)\npermutation T = transpose(4, 8)\n"
      "permutation St = stride(32, 4)\npermutation T2 = transpose(8, 4)\n"
      "permutation L = [2, 0, 1]\nkernel k() threads 1 {}\n");
  REQUIRE_MESSAGE(!P.Diags.hasErrors(), test::render(P.Diags));
  for (const Permutation &Perm : P.Program.Perms) {
    INFO(Perm.Name);
    std::set<std::int64_t> Seen;
    for (std::int64_t I = 0; I < *Perm.Size; ++I)
      Seen.insert(applyClosedForm(Perm, I).value());
    CHECK(static_cast<std::int64_t>(Seen.size()) == *Perm.Size);
    CHECK(*Seen.rbegin() == *Perm.Size - 1);
    CHECK(!applyClosedForm(Perm, *Perm.Size));
  }
  const Program &G = P.Program;
  CHECK(applyClosedForm(*G.findPerm("Sh"), 0b1001) == 0b0011);
  CHECK(applyClosedForm(*G.findPerm("Br"), 0b0001) == 0b1000);
  // The word-wide reversal equals the bit-by-bit definition at every width.
  for (std::int64_t M = 0; M <= 32; ++M) {
    Permutation Rev;
    Rev.Kind = PermKind::Bitreverse;
    Rev.Size = std::int64_t(1) << M;
    for (std::int64_t I : {std::int64_t(0), (std::int64_t(1) << M) / 2, (std::int64_t(1) << M) - 1,
                           (std::int64_t(0x5A3C96E1) & ((std::int64_t(1) << M) - 1))}) {
      std::int64_t Want = 0;
      for (std::int64_t B = 0; B < M; ++B)
        Want |= ((I >> B) & 1) << (M - 1 - B);
      CHECK(applyClosedForm(Rev, I) == Want);
    }
  }
  CHECK(applyClosedForm(*G.findPerm("T"), 1 * 8 + 2) == 2 * 4 + 1);
  // stride(n, s) == transpose(n / s, s).
  for (std::int64_t I = 0; I < 32; ++I)
    CHECK(applyClosedForm(*G.findPerm("St"), I) ==
          applyClosedForm(*G.findPerm("T2"), I));
  CHECK(applyClosedForm(*G.findPerm("L"), 0) == 2);
}

TEST_CASE("the worked example of seed 003 is consistent: D(S^-1(i)) = P(i)") {
  test::Parsed P = test::parse(test::readFile(
      std::string(BANKWISE_SAMPLES_DIR) + "/permutation_example_w4.bw"));
  REQUIRE(!P.Diags.hasErrors());
  const Program &G = P.Program;
  const Permutation &Pm = *G.findPerm("P"), &S = *G.findPerm("S"),
                    &D = *G.findPerm("D");
  std::vector<std::int64_t> SInv(16);
  for (std::int64_t I = 0; I < 16; ++I)
    SInv[*applyClosedForm(S, I)] = I;
  for (std::int64_t I = 0; I < 16; ++I)
    CHECK(*applyClosedForm(D, SInv[I]) == *applyClosedForm(Pm, I));
  // Every warp of 4 reads 4 banks of a and writes 4 banks of b.
  for (std::int64_t Warp = 0; Warp < 4; ++Warp) {
    std::set<std::int64_t> Src, Dst;
    for (std::int64_t L = 0; L < 4; ++L) {
      Src.insert(*applyClosedForm(S, Warp * 4 + L) % 4);
      Dst.insert(*applyClosedForm(D, Warp * 4 + L) % 4);
    }
    CHECK(Src.size() == 4);
    CHECK(Dst.size() == 4);
  }
}

TEST_CASE("element types know their sizes and spellings") {
  CHECK(byteSize(*parseElemType("f32")) == 4);
  CHECK(byteSize(*parseElemType("bf16")) == 2);
  CHECK(byteSize(*parseElemType("f32x4")) == 16);
  CHECK(byteSize(*parseElemType("i8x2")) == 2);
  CHECK(byteSize(*parseElemType("f64x2")) == 16);
  CHECK(spelling(*parseElemType("u16x4")) == "u16x4");
  CHECK(!parseElemType("f32x3"));
  CHECK(!parseElemType("float"));
  CHECK(!parseElemType("f32x"));
}

TEST_CASE("-D values parse as NAME=INTEGER") {
  std::string Err;
  CHECK(dsl::parseOverride("N=4096", Err) ==
        std::pair<std::string, std::int64_t>{"N", 4096});
  CHECK(dsl::parseOverride("N=-3", Err) ==
        std::pair<std::string, std::int64_t>{"N", -3});
  CHECK(dsl::parseOverride("N=0x10", Err) ==
        std::pair<std::string, std::int64_t>{"N", 16});
  for (const char *Bad : {"N", "=3", "N=", "N=3+4", "N=x", "tid=3", "N=3 M=4",
                          "N=99999999999999999999"}) {
    INFO(Bad);
    CHECK(!dsl::parseOverride(Bad, Err));
    CHECK(!Err.empty());
  }
}

TEST_CASE("tryApplyBinary gives applyBinary's value wherever applyBinary gives one, and fails where it errs") {
  // The analyses apply the inline form per lane and fall back to
  // applyBinary for its error's words: the two must agree everywhere.
  const std::int64_t Edges[] = {0, 1, -1, 2, -2, 3, -7, 62, 63, 64, 65, 1000003, -1000003,
                                INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, std::int64_t(1) << 32,
                                -(std::int64_t(1) << 32), std::int64_t(1) << 62};
  int Compared = 0;
  for (int Op = 0; Op <= static_cast<int>(BinaryOp::LogOr); ++Op)
    for (std::int64_t A : Edges)
      for (std::int64_t B : Edges) {
        const auto O = static_cast<BinaryOp>(Op);
        CAPTURE(Op);
        CAPTURE(A);
        CAPTURE(B);
        const EvalResult Slow = applyBinary(O, A, B);
        std::int64_t Fast = 0;
        if (tryApplyBinary(O, A, B, Fast)) {
          REQUIRE(Slow.ok());
          CHECK(Fast == Slow.Value);
          ++Compared;
        } else {
          // Only where applyBinary errs, or one of its two special values.
          const bool Special = (O == BinaryOp::Shl && B == 63) || (O == BinaryOp::Mod && A == INT64_MIN && B == -1);
          CHECK((!Slow.ok() || Special));
        }
      }
  CHECK(Compared > 5000);
}
