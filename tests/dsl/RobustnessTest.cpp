// Hostile inputs built in code: deep nesting, bytes a text file cannot hold,
// error floods, and random mutations of every sample. The front end must
// answer each with diagnostics, never a crash, a hang or a stack overflow.
#include "TestUtil.h"
#include "ir/Printer.h"
#include "support/Random.h"

#include <doctest/doctest.h>

#include <chrono>

using namespace bankwise;

namespace {

/// The messages of all errors, in order.
std::vector<std::string> errors(const test::Parsed &P) {
  std::vector<std::string> Out;
  for (const Diagnostic &D : P.Diags.diagnostics())
    if (D.Sev == Severity::Error)
      Out.push_back(D.Message);
  return Out;
}

std::string repeat(const std::string &S, int N) {
  std::string Out;
  Out.reserve(S.size() * N);
  for (int I = 0; I < N; ++I)
    Out += S;
  return Out;
}

const std::string NestingError = "nesting is deeper than the limit of 256";

} // namespace

TEST_CASE("100000 nested parentheses are one error, not a stack overflow") {
  const std::string Src = "param X = " + repeat("(", 100000) + "1" +
                          repeat(")", 100000) + "\nkernel k() threads 1 {}\n";
  test::Parsed P = test::parse(Src);
  CHECK(errors(P) == std::vector<std::string>{NestingError});
  CHECK(P.Diags.diagnostics().at(0).Loc.Line == 1);
}

TEST_CASE("10000 nested ifs and loops are one error") {
  for (const char *Open : {"if tid < 1 {\n", "for i in 0..2 {\n"}) {
    const std::string Src = "kernel k() threads 32 {\n" + repeat(Open, 10000) +
                            repeat("}\n", 10000) + "}\n";
    test::Parsed P = test::parse(Src);
    CHECK(errors(P) == std::vector<std::string>{NestingError});
  }
}

TEST_CASE("long chains of prefix operators and index brackets are bounded") {
  test::Parsed Neg = test::parse("param X = " + repeat("-", 100000) +
                                 "1\nkernel k() threads 1 {}\n");
  CHECK(errors(Neg) == std::vector<std::string>{NestingError});
  test::Parsed Idx =
      test::parse("kernel k(a: global i32[4]) threads 1 {\n"
                  "  let x = " +
                  repeat("a[", 50000) + "0" + repeat("]", 50000) + "\n}\n");
  CHECK(errors(Idx) == std::vector<std::string>{NestingError});
}

TEST_CASE("long operator chains are bounded by the same limit") {
  // A left-deep tree 100000 levels tall would overflow every later pass.
  test::Parsed P = test::parse("param X = 1" + repeat(" + 1", 100000) +
                               "\nkernel k() threads 1 {}\n");
  CHECK(errors(P) == std::vector<std::string>{NestingError});
  test::Parsed Q = test::parse("param X = 1" + repeat(" + 1", 200) +
                               "\nkernel k() threads 1 {}\n");
  CHECK_MESSAGE(!Q.Diags.hasErrors(), test::render(Q.Diags));
  CHECK(Q.Program.Params[0].Value == 201);
  // Chains nested in parentheses add up too.
  test::Parsed R =
      test::parse("param X = " + repeat("(", 100) + "1" +
                  repeat(" + 1 + 1 + 1)", 100) + "\nkernel k() threads 1 {}\n");
  CHECK(errors(R) == std::vector<std::string>{NestingError});
}

TEST_CASE("nesting just under the limit is accepted") {
  const std::string Src = "param X = " + repeat("(", 200) + "1" +
                          repeat(")", 200) + "\nkernel k() threads 1 {}\n";
  test::Parsed P = test::parse(Src);
  CHECK_MESSAGE(!P.Diags.hasErrors(), test::render(P.Diags));
}

TEST_CASE("an empty file is an error") {
  for (const std::string &Src : {std::string(), std::string("   \n\t\r\n"),
                                 std::string("# only a comment\n")}) {
    test::Parsed P = test::parse(Src, "empty.bw");
    CHECK(errors(P) ==
          std::vector<std::string>{"empty program: expected a kernel"});
  }
}

TEST_CASE("NUL bytes are reported with their position") {
  std::string Src = "kernel k() threads 32 {\n  sync\n}\n";
  Src.insert(Src.find("sync"), std::string(1, '\0'));
  test::Parsed P = test::parse(Src);
  REQUIRE(errors(P) == std::vector<std::string>{"null byte in source file"});
  CHECK(P.Diags.diagnostics()[0].Loc.Line == 2);
  CHECK(P.Diags.diagnostics()[0].Loc.Col == 3);
  // The printed source line shows the NUL safely.
  CHECK(P.Diags.diagnostics()[0].SourceLine == "  ?sync");

  std::string InComment = "# aXb\nkernel k() threads 1 {}\n";
  InComment[3] = '\0';
  CHECK(errors(test::parse(InComment)) ==
        std::vector<std::string>{"null byte in source file"});
}

TEST_CASE("invalid UTF-8 is reported in code, comments and strings") {
  const std::string Kernel = "\nkernel k() threads 1 {}\n";
  // A lone continuation byte in code.
  CHECK(errors(test::parse("param X = 1 \x80" + Kernel)) ==
        std::vector<std::string>{"invalid UTF-8 byte 0x80"});
  // A truncated sequence and an overlong encoding in comments.
  CHECK(errors(test::parse("# caf\xc3" + Kernel)) ==
        std::vector<std::string>{"invalid UTF-8 byte 0xc3"});
  CHECK(errors(test::parse("# \xc0\xaf" + Kernel)) ==
        std::vector<std::string>{"invalid UTF-8 byte 0xc0",
                                 "invalid UTF-8 byte 0xaf"});
  // A UTF-16 surrogate encoded as UTF-8, inside a string.
  CHECK(
      errors(test::parse("permutation P = file(\"\xed\xa0\x80\")" + Kernel)) ==
      std::vector<std::string>{"invalid UTF-8 byte 0xed",
                               "invalid UTF-8 byte 0xa0",
                               "invalid UTF-8 byte 0x80"});
  // Valid UTF-8 in comments and strings is fine.
  test::Parsed Ok =
      test::parse("# Übersicht\npermutation P = file(\"π.bin\")" + Kernel);
  CHECK_MESSAGE(!Ok.Diags.hasErrors(), test::render(Ok.Diags));
  CHECK(Ok.Program.Perms.at(0).Path == "π.bin");
}

TEST_CASE("an error flood stops after a bounded number of diagnostics") {
  test::Parsed P = test::parse(repeat("@", 100000));
  CHECK(P.Diags.numErrors() == 51);
  CHECK(errors(P).back() == "too many errors emitted, stopping now");
  test::Parsed Q =
      test::parse("kernel k() threads 1 {\n" + repeat("  y = 1\n", 5000) + "}");
  CHECK(Q.Diags.numErrors() == 51);
}

TEST_CASE("random mutations of every sample parse without crashing") {
  using Clock = std::chrono::steady_clock;
  const auto Files = test::bwFiles(BANKWISE_SAMPLES_DIR);
  REQUIRE(!Files.empty());
  Rng R(20240601);
  const char Interesting[] =
      "(){}[]:,.=<>-+*/%&|^!~#\"\n\0\x80\xff 0123456789aZ_";
  int Clean = 0;
  for (const std::string &Path : Files) {
    const std::string Original = test::readFile(Path);
    for (int Round = 0; Round < 400; ++Round) {
      std::string Src = Original;
      const int Edits = 1 + static_cast<int>(R.below(4));
      for (int E = 0; E < Edits && !Src.empty(); ++E) {
        const std::size_t At = R.below(Src.size());
        switch (R.below(4)) {
        case 0: // replace a byte
          Src[At] = Interesting[R.below(sizeof(Interesting) - 1)];
          break;
        case 1: // delete a run
          Src.erase(At, 1 + R.below(8));
          break;
        case 2: // insert a byte
          Src.insert(At, 1, Interesting[R.below(sizeof(Interesting) - 1)]);
          break;
        default: // duplicate a chunk
          Src.insert(At, Src.substr(R.below(Src.size()), 1 + R.below(40)));
          break;
        }
      }
      INFO("mutant of ", Path, ":\n", Src);
      const auto Start = Clock::now();
      test::Parsed P = test::parse(Src, "mutant.bw");
      const auto Took = Clock::now() - Start;
      CHECK(Took < std::chrono::seconds(2));
      if (!P.Diags.hasErrors()) {
        // Whatever survives mutation must still round-trip.
        ++Clean;
        test::Parsed Q = test::parse(ir::print(P.Program), "printed.bw");
        CHECK_MESSAGE(!Q.Diags.hasErrors(), test::render(Q.Diags));
        CHECK(Q.Program == P.Program);
      }
    }
  }
  MESSAGE(Clean, " mutants were still valid programs");
}
