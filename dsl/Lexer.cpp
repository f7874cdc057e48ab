#include "dsl/Lexer.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace bankwise::dsl {

namespace {

/// Length of the valid UTF-8 sequence starting at S[I] (a byte >= 0x80), or 0
/// when it is invalid (bad lead byte, truncated, overlong, surrogate, or
/// beyond U+10FFFF).
std::size_t utf8Length(std::string_view S, std::size_t I) {
  const auto B = [&](std::size_t K) {
    return static_cast<unsigned char>(S[K]);
  };
  const unsigned char Lead = B(I);
  std::size_t Len = 0;
  unsigned Min = 0;
  if (Lead >= 0xC2 && Lead <= 0xDF) {
    Len = 2;
    Min = 0x80;
  } else if (Lead >= 0xE0 && Lead <= 0xEF) {
    Len = 3;
    Min = 0x800;
  } else if (Lead >= 0xF0 && Lead <= 0xF4) {
    Len = 4;
    Min = 0x10000;
  } else {
    return 0;
  }
  if (I + Len > S.size())
    return 0;
  unsigned Cp = Lead & (0x7F >> Len);
  for (std::size_t K = 1; K < Len; ++K) {
    if ((B(I + K) & 0xC0) != 0x80)
      return 0;
    Cp = (Cp << 6) | (B(I + K) & 0x3F);
  }
  if (Cp < Min || Cp > 0x10FFFF || (Cp >= 0xD800 && Cp <= 0xDFFF))
    return 0;
  return Len;
}

bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
}
bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isIdentChar(char C) { return isIdentStart(C) || isDigit(C); }

class Lexer {
public:
  Lexer(const SourceFile &Src, DiagnosticEngine &Diags)
      : Src(Src), Text(Src.text()), Diags(Diags) {}

  std::vector<Token> run() {
    std::vector<Token> Toks;
    while (true) {
      skipSpaceAndComments();
      if (Pos >= Text.size())
        break;
      Token T;
      T.Line = Line;
      T.Col = col();
      if (lexToken(T))
        Toks.push_back(std::move(T));
    }
    Token End;
    End.Line = Line;
    End.Col = col();
    Toks.push_back(End);
    return Toks;
  }

private:
  const SourceFile &Src;
  std::string_view Text;
  DiagnosticEngine &Diags;
  std::size_t Pos = 0;
  std::size_t LineStart = 0;
  int Line = 1;

  int col() const { return static_cast<int>(Pos - LineStart) + 1; }
  char peek(std::size_t Ahead = 0) const {
    return Pos + Ahead < Text.size() ? Text[Pos + Ahead] : '\0';
  }
  void error(int L, int C, std::string Msg) {
    Src.error(Diags, Src.loc(L, C), std::move(Msg));
  }
  void newline() {
    ++Pos;
    ++Line;
    LineStart = Pos;
  }

  /// Skips one byte that is allowed only in comments and strings: checks
  /// that non-ASCII bytes form valid UTF-8 and that there is no NUL.
  void skipCommentByte() {
    if (!skipBadOrUtf8(false))
      ++Pos;
  }

  /// At a NUL or a non-ASCII byte: reports a NUL or invalid UTF-8, or (when
  /// Code) a valid non-ASCII character outside a comment or string, skips
  /// it and returns true; otherwise returns false and stays.
  bool skipBadOrUtf8(bool Code) {
    const unsigned char C = static_cast<unsigned char>(Text[Pos]);
    if (C == 0) {
      error(Line, col(), "null byte in source file");
      ++Pos;
      return true;
    }
    if (C < 0x80)
      return false;
    const std::size_t Len = utf8Length(Text, Pos);
    if (Len == 0) {
      error(Line, col(), fmt::format("invalid UTF-8 byte 0x{:02x}", C));
      ++Pos;
      return true;
    }
    if (Code)
      error(Line, col(), "non-ASCII character outside a comment or string");
    Pos += Len;
    return true;
  }

  void skipSpaceAndComments() {
    while (Pos < Text.size()) {
      const char C = Text[Pos];
      if (C == '\n') {
        newline();
      } else if (C == ' ' || C == '\t' || C == '\r') {
        ++Pos;
      } else if (C == '#' || (C == '/' && peek(1) == '/')) {
        while (Pos < Text.size() && Text[Pos] != '\n')
          skipCommentByte();
      } else {
        return;
      }
    }
  }

  /// Lexes one token into T; false when the bytes were skipped as an error.
  bool lexToken(Token &T) {
    const char C = Text[Pos];
    if (isIdentStart(C)) {
      const std::size_t Start = Pos;
      const int StartCol = col();
      while (Pos < Text.size() && isIdentChar(Text[Pos]))
        ++Pos;
      T.Kind = Tok::Ident;
      T.Text = std::string(Text.substr(Start, Pos - Start));
      cudaSpelling(T, StartCol);
      return true;
    }
    if (isDigit(C))
      return lexNumber(T);
    if (C == '"')
      return lexString(T);
    return lexPunct(T);
  }

  /// CUDA's spellings of what the DSL writes otherwise: an error that names
  /// the DSL's word, and the token read as that word so that parsing goes
  /// on (the run still fails, exit code 2).
  ///   threadIdx.x -> tx (.y ty, .z tz); blockIdx.x -> bx (by, bz);
  ///   blockDim.x -> bdx (bdy, bdz); gridDim.x -> gdx (gdy, gdz);
  ///   __syncthreads() -> sync
  void cudaSpelling(Token &T, int StartCol) {
    const bool Thread = T.Text == "threadIdx", Block = T.Text == "blockIdx";
    const bool BlockDim = T.Text == "blockDim", GridDim = T.Text == "gridDim";
    if ((Thread || Block || BlockDim || GridDim) && peek() == '.' &&
        (peek(1) == 'x' || peek(1) == 'y' || peek(1) == 'z') && !isIdentChar(peek(2))) {
      const std::string Dsl = std::string(Thread ? "t" : Block ? "b" : BlockDim ? "bd" : "gd") + peek(1);
      error(Line, StartCol, fmt::format("'{}.{}' is written '{}' in bankwise", T.Text, peek(1), Dsl));
      Pos += 2;
      T.Text = Dsl;
    } else if (T.Text == "__syncthreads") {
      std::size_t After = Pos;
      while (After < Text.size() && (Text[After] == ' ' || Text[After] == '\t'))
        ++After;
      const bool Call = After + 1 < Text.size() && Text[After] == '(' && Text[After + 1] == ')';
      error(Line, StartCol, "'__syncthreads()' is written 'sync' in bankwise");
      if (Call)
        Pos = After + 2;
      T.Text = "sync";
    }
  }

  /// A decimal literal with a fraction or an exponent: `0.5`, `1e-3`,
  /// `1_000.25`, with an optional `f` (CUDA's float suffix, no effect).
  /// True when the text at Pos is one (`0..4` is an integer and '..').
  bool atFloat() const {
    std::size_t P = Pos;
    while (P < Text.size() && (isDigit(Text[P]) || Text[P] == '_'))
      ++P;
    auto Digit = [&](std::size_t At) { return At < Text.size() && isDigit(Text[At]); };
    if (P < Text.size() && Text[P] == '.')
      return Digit(P + 1);
    if (P < Text.size() && (Text[P] == 'e' || Text[P] == 'E'))
      return Digit(P + 1) || ((P + 1 < Text.size() && (Text[P + 1] == '+' || Text[P + 1] == '-')) && Digit(P + 2));
    return false;
  }

  bool lexFloat(Token &T) {
    const std::size_t Start = Pos;
    std::string Clean;
    auto Digits = [&] {
      while (Pos < Text.size() && (isDigit(Text[Pos]) || Text[Pos] == '_'))
        if (Text[Pos++] != '_')
          Clean += Text[Pos - 1];
    };
    Digits();
    if (peek() == '.') {
      Clean += Text[Pos++];
      Digits();
    }
    if (Pos < Text.size() && (Text[Pos] == 'e' || Text[Pos] == 'E')) {
      Clean += Text[Pos++];
      if (peek() == '+' || peek() == '-')
        Clean += Text[Pos++];
      Digits();
    }
    if (Pos < Text.size() && (Text[Pos] == 'f' || Text[Pos] == 'F'))
      ++Pos;
    bool Bad = false;
    while (Pos < Text.size() && isIdentChar(Text[Pos])) { // 1.5x, 2.0ff
      ++Pos;
      Bad = true;
    }
    T.Kind = Tok::Float;
    T.Text = std::string(Text.substr(Start, Pos - Start));
    T.FloatValue = std::strtod(Clean.c_str(), nullptr);
    if (Bad) {
      error(T.Line, T.Col, fmt::format("invalid floating-point literal '{}'", T.Text));
      T.FloatValue = 0;
    } else if (!std::isfinite(T.FloatValue)) {
      error(T.Line, T.Col, fmt::format("floating-point literal '{}' is out of range", T.Text));
      T.FloatValue = 0;
    }
    return true;
  }

  bool lexNumber(Token &T) {
    if (atFloat())
      return lexFloat(T);
    const std::size_t Start = Pos;
    unsigned Base = 10;
    if (Text[Pos] == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      Base = 16;
      Pos += 2;
    } else if (Text[Pos] == '0' && (peek(1) == 'b' || peek(1) == 'B')) {
      Base = 2;
      Pos += 2;
    }
    std::uint64_t V = 0;
    bool TooLarge = false, AnyDigit = false, Bad = false;
    while (Pos < Text.size() && (isIdentChar(Text[Pos]))) {
      const char D = Text[Pos++];
      if (D == '_')
        continue;
      unsigned Digit = 99;
      if (isDigit(D))
        Digit = D - '0';
      else if (D >= 'a' && D <= 'f')
        Digit = D - 'a' + 10;
      else if (D >= 'A' && D <= 'F')
        Digit = D - 'A' + 10;
      if (Digit >= Base) {
        Bad = true;
        continue;
      }
      AnyDigit = true;
      if (V > (std::uint64_t{1} << 63) / Base ||
          V * Base + Digit > (std::uint64_t{1} << 63))
        TooLarge = true;
      else
        V = V * Base + Digit;
    }
    T.Kind = Tok::Int;
    T.Text = std::string(Text.substr(Start, Pos - Start));
    if (Bad || !AnyDigit) {
      error(T.Line, T.Col, fmt::format("invalid integer literal '{}'", T.Text));
      V = 0;
    } else if (TooLarge) {
      error(
          T.Line, T.Col,
          fmt::format("integer literal '{}' does not fit in 64 bits", T.Text));
      V = 0;
    }
    T.IntValue = V;
    return true;
  }

  bool lexString(Token &T) {
    ++Pos; // opening quote
    T.Kind = Tok::String;
    while (true) {
      if (Pos >= Text.size() || Text[Pos] == '\n') {
        error(T.Line, T.Col, "unterminated string");
        return true;
      }
      const char C = Text[Pos];
      if (C == '"') {
        ++Pos;
        return true;
      }
      if (C == '\\') {
        const char E = peek(1);
        const char *Out = E == 'n'    ? "\n"
                          : E == 't'  ? "\t"
                          : E == '"'  ? "\""
                          : E == '\\' ? "\\"
                                      : nullptr;
        if (!Out) {
          error(Line, col(), "unknown escape sequence in string");
          ++Pos;
          continue;
        }
        T.Text += Out;
        Pos += 2;
        continue;
      }
      if (static_cast<unsigned char>(C) < 0x20 && C != '\t') {
        skipCommentByte(); // reports NUL
        if (C != 0)
          error(Line, col() - 1, "control character in string");
        continue;
      }
      const std::size_t Before = Pos;
      skipCommentByte();
      T.Text += std::string(Text.substr(Before, Pos - Before));
    }
  }

  bool lexPunct(Token &T) {
    const char C = Text[Pos];
    const char N = peek(1);
    auto Two = [&](Tok K) {
      T.Kind = K;
      T.Text = std::string(Text.substr(Pos, 2));
      Pos += 2;
      return true;
    };
    auto Three = [&](Tok K) {
      T.Kind = K;
      T.Text = std::string(Text.substr(Pos, 3));
      Pos += 3;
      return true;
    };
    auto One = [&](Tok K) {
      T.Kind = K;
      T.Text = std::string(1, C);
      ++Pos;
      return true;
    };
    switch (C) {
    case '(':
      return One(Tok::LParen);
    case ')':
      return One(Tok::RParen);
    case '[':
      return One(Tok::LBrack);
    case ']':
      return One(Tok::RBrack);
    case '{':
      return One(Tok::LBrace);
    case '}':
      return One(Tok::RBrace);
    case ',':
      return One(Tok::Comma);
    case ':':
      return One(Tok::Colon);
    case ';':
      return One(Tok::Semi);
    case '+':
      return N == '=' ? Two(Tok::OpAssign) : One(Tok::Plus);
    case '-':
      return N == '=' ? Two(Tok::OpAssign) : One(Tok::Minus);
    case '*':
      return N == '=' ? Two(Tok::OpAssign) : One(Tok::Star);
    case '/':
      return N == '=' ? Two(Tok::OpAssign) : One(Tok::Slash);
    case '%':
      return N == '=' ? Two(Tok::OpAssign) : One(Tok::Percent);
    case '^':
      return N == '=' ? Two(Tok::OpAssign) : One(Tok::Caret);
    case '?':
      return One(Tok::Question);
    case '~':
      return One(Tok::Tilde);
    case '.':
      if (N == '.')
        return Two(Tok::DotDot);
      break;
    case '=':
      return N == '=' ? Two(Tok::EqEq) : One(Tok::Assign);
    case '!':
      return N == '=' ? Two(Tok::Ne) : One(Tok::Bang);
    case '<':
      if (N == '<')
        return peek(2) == '=' ? Three(Tok::OpAssign) : Two(Tok::Shl);
      return N == '=' ? Two(Tok::Le) : One(Tok::Lt);
    case '>':
      if (N == '>')
        return peek(2) == '=' ? Three(Tok::OpAssign) : Two(Tok::Shr);
      return N == '=' ? Two(Tok::Ge) : One(Tok::Gt);
    case '&':
      return N == '&' ? Two(Tok::AmpAmp) : N == '=' ? Two(Tok::OpAssign) : One(Tok::Amp);
    case '|':
      return N == '|' ? Two(Tok::PipePipe) : N == '=' ? Two(Tok::OpAssign) : One(Tok::Pipe);
    default:
      break;
    }
    reportStray();
    return false;
  }

  void reportStray() {
    const unsigned char C = static_cast<unsigned char>(Text[Pos]);
    if (skipBadOrUtf8(true)) {
      // reported
    } else if (C < 0x20 || C == 0x7F) {
      error(Line, col(),
            fmt::format("unexpected control character 0x{:02x}", C));
      ++Pos;
    } else {
      error(Line, col(), fmt::format("unexpected character '{}'", char(C)));
      ++Pos;
    }
  }
};

} // namespace

SourceFile::SourceFile(std::string Name, std::string_view Text)
    : Name(std::move(Name)), Text(Text) {
  LineStarts.push_back(0);
  for (std::size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\n')
      LineStarts.push_back(I + 1);
}

std::string SourceFile::lineText(int L) const {
  if (L < 1 || L > static_cast<int>(LineStarts.size()))
    return {};
  const std::size_t Start = LineStarts[L - 1];
  std::size_t End = Start;
  while (End < Text.size() && Text[End] != '\n')
    ++End;
  std::string Out;
  for (std::size_t I = Start; I < End;) {
    const unsigned char C = static_cast<unsigned char>(Text[I]);
    if (C >= 0x80) {
      const std::size_t Len = utf8Length(Text, I);
      if (Len == 0) {
        Out += '?';
        ++I;
      } else {
        Out += std::string(Text.substr(I, Len));
        I += Len;
      }
    } else {
      Out += (C < 0x20 && C != '\t') || C == 0x7F ? '?' : char(C);
      ++I;
    }
  }
  return Out;
}

void SourceFile::error(DiagnosticEngine &Diags, const SourceLoc &Loc,
                       std::string Message) const {
  if (Diags.numErrors() >= MaxErrors) {
    Capped = true;
    return;
  }
  Diags.error(Loc, std::move(Message), lineText(Loc.Line));
}
void SourceFile::warning(DiagnosticEngine &Diags, const SourceLoc &Loc,
                         std::string Message) const {
  if (Capped)
    return;
  Diags.warning(Loc, std::move(Message), lineText(Loc.Line));
}
void SourceFile::note(DiagnosticEngine &Diags, const SourceLoc &Loc,
                      std::string Message) const {
  if (Capped)
    return;
  Diags.note(Loc, std::move(Message), lineText(Loc.Line));
}

std::string describe(Tok K) {
  switch (K) {
  case Tok::Eof:
    return "end of file";
  case Tok::Ident:
    return "identifier";
  case Tok::Int:
    return "integer";
  case Tok::String:
    return "string";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::LBrack:
    return "'['";
  case Tok::RBrack:
    return "']'";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::Comma:
    return "','";
  case Tok::Colon:
    return "':'";
  case Tok::Semi:
    return "';'";
  case Tok::DotDot:
    return "'..'";
  case Tok::Assign:
    return "'='";
  case Tok::Plus:
    return "'+'";
  case Tok::Minus:
    return "'-'";
  case Tok::Star:
    return "'*'";
  case Tok::Slash:
    return "'/'";
  case Tok::Percent:
    return "'%'";
  case Tok::Shl:
    return "'<<'";
  case Tok::Shr:
    return "'>>'";
  case Tok::Amp:
    return "'&'";
  case Tok::Pipe:
    return "'|'";
  case Tok::Caret:
    return "'^'";
  case Tok::Tilde:
    return "'~'";
  case Tok::Bang:
    return "'!'";
  case Tok::AmpAmp:
    return "'&&'";
  case Tok::PipePipe:
    return "'||'";
  case Tok::Lt:
    return "'<'";
  case Tok::Le:
    return "'<='";
  case Tok::Gt:
    return "'>'";
  case Tok::Ge:
    return "'>='";
  case Tok::EqEq:
    return "'=='";
  case Tok::Ne:
    return "'!='";
  case Tok::Float:
    return "floating-point literal";
  case Tok::Question:
    return "'?'";
  case Tok::OpAssign:
    return "compound assignment";
  }
  return "token";
}

std::vector<Token> lex(const SourceFile &Src, DiagnosticEngine &Diags) {
  return Lexer(Src, Diags).run();
}

} // namespace bankwise::dsl
