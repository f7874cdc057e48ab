// The .bw lexer: source bytes -> tokens. Keywords are identifiers here; the
// parser gives them meaning by context. Bad bytes (NUL, invalid UTF-8, stray
// characters) are reported and skipped, so lexing never fails.
#pragma once

#include "support/Diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise::dsl {

/// Errors reported per file before the front end stops with "too many errors
/// emitted, stopping now" (bounded output and time on any input).
constexpr int MaxErrors = 50;

/// Deepest nesting of expressions and blocks the parser accepts.
constexpr int MaxNestingDepth = 256;

/// A source file: its name, text and line starts, for diagnostics.
class SourceFile {
public:
  SourceFile(std::string Name, std::string_view Text);
  const std::string &name() const { return Name; }
  std::string_view text() const { return Text; }
  SourceLoc loc(int Line, int Col) const { return {Name, Line, Col}; }
  /// Line Line (1-based) without its newline; control bytes and invalid
  /// UTF-8 shown as '?' so a diagnostic prints safely.
  std::string lineText(int Line) const;
  /// Reports an error at Loc with its source line; once MaxErrors errors are
  /// in Diags further ones are dropped and capped() becomes true.
  void error(DiagnosticEngine &Diags, const SourceLoc &Loc,
             std::string Message) const;
  void warning(DiagnosticEngine &Diags, const SourceLoc &Loc,
               std::string Message) const;
  void note(DiagnosticEngine &Diags, const SourceLoc &Loc,
            std::string Message) const;

  bool capped() const { return Capped; }

private:
  std::string Name;
  std::string_view Text;
  std::vector<std::size_t> LineStarts;
  mutable bool Capped = false;
};

enum class Tok {
  Eof,
  Ident,
  Int,
  String,
  LParen,
  RParen,
  LBrack,
  RBrack,
  LBrace,
  RBrace,
  Comma,
  Colon,
  Semi,
  DotDot,
  Assign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Shl,
  Shr,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Bang,
  AmpAmp,
  PipePipe,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  Ne,
  Float,    ///< 0.5, 1e-3, 2.5f
  Question, ///< '?' of `c ? a : b`
  OpAssign  ///< a compound assignment, Text "+=", "<<=", ...
};

/// How a token is written in a diagnostic: "'('", "identifier".
std::string describe(Tok K);

struct Token {
  Tok Kind = Tok::Eof;
  /// The token's text; for String the unescaped contents.
  std::string Text;
  /// Int: the magnitude (up to 2^63, so that -9223372036854775808 parses).
  std::uint64_t IntValue = 0;
  /// Float: the value (finite, not negative).
  double FloatValue = 0;
  int Line = 1;
  int Col = 1;
};

/// Splits Src into tokens ending in one Eof. Errors (unexpected character,
/// invalid UTF-8, NUL byte, unterminated string, integer literal too large)
/// go to Diags and the offending bytes are skipped.
std::vector<Token> lex(const SourceFile &Src, DiagnosticEngine &Diags);

} // namespace bankwise::dsl
