// Annotated bad inputs: every file under bad/ announces the diagnostics it
// must produce, in comments; any other diagnostic, or a missing one, fails.
//
//   # expect-error@+1: MESSAGE       on the next line (any column)
//   # expect-error@-2:7: MESSAGE     two lines up, column 7
//   # expect-error@12:3: MESSAGE     line 12, column 3
//   # expect-error: MESSAGE          on this line
//   # expect-error@none: MESSAGE     a diagnostic with no location (-D)
//   # expect-warning..., # expect-note...   the same for other severities
//   # define: NAME=VALUE             pass -D NAME=VALUE to the parser
#include "TestUtil.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <regex>
#include <sstream>

using namespace bankwise;

namespace {

struct Expectation {
  Severity Sev = Severity::Error;
  int Line = 0; // 0: no location
  int Col = 0;  // 0: any column
  std::string Message;
  bool Matched = false;
};

const char *name(Severity S) {
  return S == Severity::Error     ? "error"
         : S == Severity::Warning ? "warning"
                                  : "note";
}

std::string show(Severity S, int Line, int Col, const std::string &Msg) {
  return fmt::format("{}:{}: {}: {}", Line, Col, name(S), Msg);
}

struct Annotations {
  std::vector<Expectation> Expected;
  dsl::ParamOverrides Overrides;
};

Annotations readAnnotations(const std::string &Text) {
  static const std::regex Expect(
      R"(expect-(error|warning|note)(@(none|[+-]?\d+)(:(\d+))?)?: (.*)$)");
  static const std::regex Define(R"(#\s*define:\s*(\w+)=(-?\d+)\s*$)");
  Annotations A;
  std::istringstream In(Text);
  std::string Line;
  for (int LineNo = 1; std::getline(In, Line); ++LineNo) {
    std::smatch M;
    if (std::regex_search(Line, M, Define)) {
      A.Overrides[M[1]] = std::stoll(M[2]);
      continue;
    }
    if (!std::regex_search(Line, M, Expect))
      continue;
    Expectation E;
    E.Sev = M[1] == "error"     ? Severity::Error
            : M[1] == "warning" ? Severity::Warning
                                : Severity::Note;
    const std::string Where = M[3];
    if (Where.empty())
      E.Line = LineNo;
    else if (Where == "none")
      E.Line = 0;
    else if (Where[0] == '+' || Where[0] == '-')
      E.Line = LineNo + std::stoi(Where);
    else
      E.Line = std::stoi(Where);
    E.Col = M[5].matched ? std::stoi(M[5]) : 0;
    E.Message = M[6];
    A.Expected.push_back(E);
  }
  return A;
}

/// Parses Source and compares its diagnostics with the annotations;
/// returns a description of every mismatch (empty when all agree).
std::string verify(const std::string &Source, const std::string &Path) {
  Annotations A = readAnnotations(Source);
  test::Parsed P = test::parse(Source, Path, A.Overrides);
  std::string Problems;
  for (const Diagnostic &D : P.Diags.diagnostics()) {
    auto It = std::find_if(
        A.Expected.begin(), A.Expected.end(), [&](const Expectation &E) {
          return !E.Matched && E.Sev == D.Sev && E.Line == D.Loc.Line &&
                 (E.Col == 0 || E.Col == D.Loc.Col) && E.Message == D.Message;
        });
    if (It == A.Expected.end())
      Problems +=
          "unexpected " + show(D.Sev, D.Loc.Line, D.Loc.Col, D.Message) + "\n";
    else
      It->Matched = true;
  }
  for (const Expectation &E : A.Expected)
    if (!E.Matched)
      Problems += "missing " + show(E.Sev, E.Line, E.Col, E.Message) + "\n";
  if (!Problems.empty())
    Problems += "--- all diagnostics ---\n" + test::render(P.Diags);
  return Problems;
}

} // namespace

TEST_CASE("annotated bad inputs report exactly their expected diagnostics") {
  const auto Files = test::bwFiles(BANKWISE_DSL_BAD_DIR);
  REQUIRE(Files.size() >= 45);
  for (const std::string &Path : Files) {
    const std::string Source = test::readFile(Path);
    INFO("file: ", Path);
    const Annotations A = readAnnotations(Source);
    bool AnyError = false;
    for (const Expectation &E : A.Expected)
      AnyError = AnyError || E.Sev != Severity::Note;
    CHECK_MESSAGE(AnyError, "a bad input must announce a diagnostic");
    const std::string Problems = verify(Source, Path);
    CHECK_MESSAGE(Problems.empty(), Problems);
  }
}

TEST_CASE("the expectation checker itself rejects unannounced diagnostics") {
  // A file that errs but announces nothing, and one announcing a wrong text.
  CHECK(!verify("param X = 1 / 0\nkernel k() threads 1 { sync }\n", "a.bw")
             .empty());
  CHECK(!verify("# expect-error@+1: division by nothing\n"
                "param X = 1 / 0\nkernel k() threads 1 { sync }\n",
                "b.bw")
             .empty());
  CHECK(verify("# expect-error@+1:13: division by zero\n"
               "param X = 1 / 0\nkernel k() threads 1 { sync }\n",
               "c.bw")
            .empty());
}
