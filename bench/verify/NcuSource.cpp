#include "NcuSource.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace bankwise::verify {

const char *spaceName(Space S) {
  switch (S) {
  case Space::Shared: return "shared";
  case Space::Global: return "global";
  case Space::Local: return "local";
  case Space::Other: break;
  }
  return "other";
}

const char *opName(Op O) {
  switch (O) {
  case Op::Load: return "load";
  case Op::Store: return "store";
  case Op::Atomic: return "atomic";
  case Op::Other: break;
  }
  return "other";
}

std::string trimSpaces(std::string_view S) {
  const auto B = S.find_first_not_of(" \t\r");
  if (B == std::string_view::npos)
    return {};
  const auto E = S.find_last_not_of(" \t\r");
  return std::string(S.substr(B, E - B + 1));
}

namespace {

std::string trim(std::string_view S) { return trimSpaces(S); }

/// "0x7ff8b97a00b0" -> its value; nullopt for anything else.
std::optional<std::uint64_t> parseAddress(const std::string &S) {
  if (S.size() < 3 || S.size() > 18 || S.rfind("0x", 0) != 0)
    return std::nullopt;
  std::uint64_t V = 0;
  for (std::size_t I = 2; I < S.size(); ++I) {
    const char C = S[I];
    const int D = C >= '0' && C <= '9' ? C - '0' : C >= 'a' && C <= 'f' ? C - 'a' + 10 : C >= 'A' && C <= 'F' ? C - 'A' + 10 : -1;
    if (D < 0)
      return std::nullopt;
    V = V * 16 + static_cast<std::uint64_t>(D);
  }
  return V;
}

/// A counter cell: "-" and "" are "not applicable" (0); thousands
/// separators are dropped. Anything else that is not a number is an error.
double counter(const std::string &Cell, std::size_t LineNo, const std::string &Column) {
  std::string T;
  for (char C : Cell)
    if (C != ',' && C != ' ')
      T += C;
  if (T.empty() || T == "-")
    return 0;
  try {
    std::size_t Used = 0;
    const double V = std::stod(T, &Used);
    if (Used == T.size() && std::isfinite(V))
      return V;
  } catch (const std::exception &) {
  }
  throw NcuSourceError(fmt::format("line {}: column \"{}\" holds \"{}\", not a number", LineNo, Column, Cell));
}

Space parseSpace(const std::string &S) {
  if (S == "Shared")
    return Space::Shared;
  if (S == "Global")
    return Space::Global;
  if (S == "Local")
    return Space::Local;
  return Space::Other;
}

Op parseOp(const std::string &S) {
  if (S == "Load")
    return Op::Load;
  if (S == "Store")
    return Op::Store;
  if (S == "Atomic" || S == "Reduction")
    return Op::Atomic;
  return Op::Other;
}

/// The operation of a SASS memory instruction from its mnemonic (sassMnemonic): RED*,
/// ATOM* atomic; LD* load; ST* store.
Op opOfMnemonic(std::string_view Sass) {
  const std::string_view W = sassMnemonic(Sass);
  if (W.rfind("RED", 0) == 0 || W.rfind("ATOM", 0) == 0)
    return Op::Atomic;
  if (W.rfind("LD", 0) == 0)
    return Op::Load;
  if (W.rfind("ST", 0) == 0)
    return Op::Store;
  return Op::Other;
}

/// Column positions of one section's header.
struct Columns {
  int LineNo = -1, LineSource = -1, Address = -1, Sass = -1, Executed = -1, AddressSpace = -1, Operation = -1,
      Wavefronts = -1, Sectors = -1, TagRequests = -1;
  std::size_t Count = 0;
};

Columns readHeader(const std::vector<std::string> &H, std::size_t LineNo) {
  Columns C;
  C.Count = H.size();
  for (std::size_t I = 0; I < H.size(); ++I) {
    const std::string &N = H[I];
    const int Ix = static_cast<int>(I);
    if (N == "Line No")
      C.LineNo = Ix;
    else if (N == "Source")
      (C.LineSource < 0 ? C.LineSource : C.Sass) = Ix; // the CUDA text first, the SASS text second
    else if (N == "Address")
      C.Address = Ix;
    else if (N == "Instructions Executed")
      C.Executed = Ix;
    else if (N == "Address Space")
      C.AddressSpace = Ix;
    else if (N == "Access Operation")
      C.Operation = Ix;
    else if (N == "L1 Wavefronts Shared")
      C.Wavefronts = Ix;
    else if (N == "L2 Theoretical Sectors Global")
      C.Sectors = Ix;
    else if (N == "L1 Tag Requests Global")
      C.TagRequests = Ix;
  }
  // A sass-only export has "Address","Source" and no "Line No".
  if (C.LineNo < 0 && C.Sass < 0)
    std::swap(C.LineSource, C.Sass);
  // Only these are always there: ncu leaves out the memory columns of a function without memory
  // instructions, and the shared (global) ones of a function without shared (global) accesses.
  std::vector<std::string> Missing;
  if (C.Address < 0)
    Missing.push_back("Address");
  if (C.Sass < 0)
    Missing.push_back("Source (SASS)");
  if (C.Executed < 0)
    Missing.push_back("Instructions Executed");
  if ((C.AddressSpace < 0) != (C.Operation < 0))
    Missing.push_back(C.AddressSpace < 0 ? "Address Space" : "Access Operation");
  if (!Missing.empty()) {
    std::string L;
    for (const auto &M : Missing)
      L += (L.empty() ? "\"" : ", \"") + M + "\"";
    throw NcuSourceError(fmt::format("line {}: the header lacks {}", LineNo, L));
  }
  return C;
}

} // namespace

std::vector<std::string> splitCsvRecord(std::string_view Line, std::size_t LineNo) {
  std::vector<std::string> Out;
  std::string Cur;
  bool Quoted = false;
  for (std::size_t I = 0; I < Line.size(); ++I) {
    const char C = Line[I];
    if (Quoted) {
      if (C == '"') {
        if (I + 1 < Line.size() && Line[I + 1] == '"') {
          Cur += '"';
          ++I;
        } else
          Quoted = false;
      } else
        Cur += C;
    } else if (C == '"')
      Quoted = true;
    else if (C == ',') {
      Out.push_back(std::move(Cur));
      Cur.clear();
    } else if (C != '\r')
      Cur += C;
  }
  if (Quoted)
    throw NcuSourceError(fmt::format("line {}: unterminated quoted field", LineNo));
  Out.push_back(std::move(Cur));
  return Out;
}

/// A CUDA source row `"N","<source>","f3",...,"fCount"` whose source text
/// may hold unescaped quotes: the fields after the source are found from the
/// end (`","` separators, none inside them); nullopt when the row does not
/// have that shape.
std::optional<std::vector<std::string>> splitSourceRow(std::string_view Line, std::size_t Count) {
  while (!Line.empty() && Line.back() == '\r')
    Line.remove_suffix(1);
  if (Count < 3 || Line.size() < 2 || Line.front() != '"' || Line.back() != '"')
    return std::nullopt;
  const std::size_t FirstEnd = Line.find("\",\"");
  if (FirstEnd == std::string_view::npos)
    return std::nullopt;
  std::vector<std::string> Tail; // fields 3..Count, last first
  std::size_t End = Line.size() - 1; // the closing quote of the last field
  for (std::size_t I = 0; I + 2 < Count; ++I) {
    const std::size_t Sep = Line.rfind("\",\"", End - 1);
    if (Sep == std::string_view::npos || Sep <= FirstEnd)
      return std::nullopt;
    Tail.emplace_back(Line.substr(Sep + 3, End - Sep - 3));
    End = Sep;
  }
  std::vector<std::string> Out;
  Out.emplace_back(Line.substr(1, FirstEnd - 1));
  Out.emplace_back(Line.substr(FirstEnd + 3, End - FirstEnd - 3));
  Out.insert(Out.end(), Tail.rbegin(), Tail.rend());
  if (Out[0].empty())
    return std::nullopt; // a SASS row: no source text in it
  for (char C : Out[0])
    if (C < '0' || C > '9')
      return std::nullopt; // not a source row: its first field is a line number
  return Out;
}

std::string shortFunctionName(std::string_view Signature) {
  std::string S(Signature);
  // Cut the parameter list: the last top-level '(' (templates may hold parentheses).
  int Depth = 0;
  std::size_t Paren = std::string::npos;
  for (std::size_t I = 0; I < S.size(); ++I) {
    if (S[I] == '<')
      ++Depth;
    else if (S[I] == '>')
      --Depth;
    else if (S[I] == '(' && Depth == 0) {
      Paren = I;
      break;
    }
  }
  if (Paren != std::string::npos)
    S = S.substr(0, Paren);
  if (auto P = S.find('<'); P != std::string::npos)
    S = S.substr(0, P);
  if (auto P = S.rfind("::"); P != std::string::npos)
    S = S.substr(P + 2);
  if (auto P = S.rfind(' '); P != std::string::npos)
    S = S.substr(P + 1);
  return S;
}

const FunctionSource *NcuSource::find(std::string_view Name) const {
  for (const auto &F : Functions)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

NcuSource parseNcuSource(std::string_view Text) {
  NcuSource Out;
  FunctionSource *Cur = nullptr;
  Columns Cols;
  bool HaveHeader = false;
  int CurLine = 0;
  bool HaveLine = false;
  std::unordered_map<std::string, std::size_t> ByAddress; // per function: address -> index in Memory
  std::set<std::pair<std::string, int>> Listed;            // per function: (address, line) seen
  std::size_t LineNo = 0, Pos = 0;
  while (Pos < Text.size()) {
    std::size_t End = Text.find('\n', Pos);
    if (End == std::string_view::npos)
      End = Text.size();
    const std::string_view Line = Text.substr(Pos, End - Pos);
    Pos = End + 1;
    ++LineNo;
    if (trim(Line).empty())
      continue;
    if (Line.front() == '=') // "==PROF==" / "==WARNING==" lines mixed into the output
      continue;
    std::vector<std::string> F;
    std::optional<NcuSourceError> SplitError;
    try {
      F = splitCsvRecord(Line, LineNo);
    } catch (const NcuSourceError &E) {
      if (!HaveHeader)
        throw;
      SplitError = E;
    }
    // ncu quotes each field but leaves quotes inside the CUDA source text
    // as they are (`asm ("mov.u32 %0, %%laneid;" : ...)` in a toolkit
    // header): a source row whose split went wrong is read from its ends,
    // the line number first and the header's other fields last.
    if (HaveHeader && (SplitError || F.size() != Cols.Count) && Cols.LineNo == 0 && Cols.LineSource == 1)
      if (auto Fixed = splitSourceRow(Line, Cols.Count)) {
        F = std::move(*Fixed);
        SplitError.reset();
      }
    if (SplitError)
      throw *SplitError;
    if (F[0] == "File Path") {
      Out.Functions.emplace_back();
      Cur = &Out.Functions.back();
      Cur->FilePath = F.size() > 1 ? F[1] : "";
      HaveHeader = HaveLine = false;
      ByAddress.clear();
      Listed.clear();
      continue;
    }
    if (F[0] == "Function Name") {
      if (!Cur) {
        Out.Functions.emplace_back();
        Cur = &Out.Functions.back();
        HaveHeader = HaveLine = false;
        ByAddress.clear();
        Listed.clear();
      }
      Cur->Signature = F.size() > 1 ? F[1] : "";
      Cur->Name = shortFunctionName(Cur->Signature);
      continue;
    }
    if (F[0] == "Line No" || (F[0] == "Address" && F.size() > 1 && F[1] == "Source")) {
      if (!Cur)
        throw NcuSourceError(fmt::format("line {}: a header before any \"Function Name\" row", LineNo));
      Cols = readHeader(F, LineNo);
      HaveHeader = true;
      continue;
    }
    if (!Cur || !HaveHeader)
      throw NcuSourceError(fmt::format("line {}: a data row before any \"Function Name\" and header rows", LineNo));
    if (F.size() != Cols.Count)
      throw NcuSourceError(
          fmt::format("line {}: {} fields where the section's header has {}", LineNo, F.size(), Cols.Count));
    const bool IsCudaLine = Cols.LineNo >= 0 && !F[Cols.LineNo].empty();
    if (IsCudaLine) {
      try {
        std::size_t Used = 0;
        CurLine = std::stoi(F[Cols.LineNo], &Used);
        if (Used != F[Cols.LineNo].size() || CurLine <= 0)
          throw std::invalid_argument("");
      } catch (const std::exception &) {
        throw NcuSourceError(fmt::format("line {}: \"{}\" is not a line number", LineNo, F[Cols.LineNo]));
      }
      HaveLine = true;
      Cur->LineText.emplace(CurLine, trim(F[Cols.LineSource]));
      continue;
    }
    const std::string Address = F[Cols.Address];
    if (Address.rfind("0x", 0) != 0)
      continue; // "..." separators between blocks of one line
    if (Cols.LineNo >= 0 && !HaveLine)
      throw NcuSourceError(fmt::format("line {}: a SASS row before any CUDA line row", LineNo));
    const int L = Cols.LineNo >= 0 ? CurLine : 0;
    ++Cur->SassRows;
    if (const auto A = parseAddress(Address))
      Cur->RowLines.emplace_back(*A, L);
    if (!Listed.emplace(Address, L).second) {
      ++Cur->DuplicateRows; // the same instruction listed again under the same line
      continue;
    }
    if (Cols.AddressSpace < 0)
      continue; // no memory instruction in this function
    const std::string SpaceText = trim(F[Cols.AddressSpace]);
    if (SpaceText.empty() || SpaceText == "-")
      continue;
    if (auto It = ByAddress.find(Address); It != ByAddress.end()) {
      Cur->Memory[It->second].Lines.push_back(L); // listed under another line too
      continue;
    }
    MemoryInstruction M;
    M.Address = Address;
    M.Sass = trim(F[Cols.Sass]);
    M.Lines.push_back(L);
    M.SpaceText = SpaceText;
    M.OpText = trim(F[Cols.Operation]);
    M.AddressSpace = parseSpace(M.SpaceText);
    M.Operation = parseOp(M.OpText);
    if (M.Operation == Op::Other)
      M.Operation = opOfMnemonic(M.Sass); // ncu 2025.3 leaves a REDG's "Access Operation" as "-"
    M.Executed = counter(F[Cols.Executed], LineNo, "Instructions Executed");
    if (M.AddressSpace == Space::Shared && Cols.Wavefronts < 0)
      throw NcuSourceError(fmt::format("line {}: a shared-memory instruction, and the section has no \"L1 "
                                       "Wavefronts Shared\" column (profile with --section SourceCounters)",
                                       LineNo));
    if (M.AddressSpace == Space::Global && Cols.Sectors < 0)
      throw NcuSourceError(fmt::format("line {}: a global-memory instruction, and the section has no \"L2 "
                                       "Theoretical Sectors Global\" column (profile with --section SourceCounters)",
                                       LineNo));
    if (Cols.Wavefronts >= 0)
      M.SharedWavefronts = counter(F[Cols.Wavefronts], LineNo, "L1 Wavefronts Shared");
    if (Cols.Sectors >= 0)
      M.GlobalSectors = counter(F[Cols.Sectors], LineNo, "L2 Theoretical Sectors Global");
    if (Cols.TagRequests >= 0)
      M.TagRequests = counter(F[Cols.TagRequests], LineNo, "L1 Tag Requests Global");
    ByAddress.emplace(Address, Cur->Memory.size());
    Cur->Memory.push_back(std::move(M));
  }
  for (auto &Fn : Out.Functions) {
    if (Fn.Signature.empty())
      throw NcuSourceError(fmt::format("a section of \"{}\" has no \"Function Name\" row", Fn.FilePath));
    // First listing wins: sort by address, keeping the first row of an address.
    std::stable_sort(Fn.RowLines.begin(), Fn.RowLines.end(),
                     [](const auto &A, const auto &B) { return A.first < B.first; });
    Fn.RowLines.erase(std::unique(Fn.RowLines.begin(), Fn.RowLines.end(),
                                  [](const auto &A, const auto &B) { return A.first == B.first; }),
                      Fn.RowLines.end());
  }
  mergeInlinedSections(Out);
  return Out;
}

void mergeInlinedSections(NcuSource &Source) {
  auto &Fns = Source.Functions;
  auto IsCu = [](const std::string &Path) { return Path.size() > 3 && Path.compare(Path.size() - 3, 3, ".cu") == 0; };
  std::vector<bool> Merged(Fns.size(), false);
  for (std::size_t P = 0; P < Fns.size(); ++P) {
    if (Merged[P] || !IsCu(Fns[P].FilePath))
      continue;
    FunctionSource &Primary = Fns[P];
    std::set<std::string> Have;
    for (const auto &M : Primary.Memory)
      Have.insert(M.Address);
    for (std::size_t S = 0; S < Fns.size(); ++S) {
      if (S == P || Merged[S] || Fns[S].Signature != Primary.Signature || Fns[S].FilePath == Primary.FilePath ||
          IsCu(Fns[S].FilePath))
        continue;
      FunctionSource &Header = Fns[S];
      const std::string File = Header.FilePath.substr(Header.FilePath.find_last_of('/') + 1);
      for (auto &M : Header.Memory) {
        if (!Have.insert(M.Address).second)
          continue;
        const auto A = parseAddress(M.Address);
        int Line = 0;
        if (A && !Primary.RowLines.empty()) {
          auto It = std::lower_bound(Primary.RowLines.begin(), Primary.RowLines.end(), *A,
                                     [](const auto &R, std::uint64_t V) { return R.first < V; });
          Line = It != Primary.RowLines.begin() ? std::prev(It)->second : It->second;
        }
        M.InlinedFrom = fmt::format("{}:{}", File, M.Lines.empty() ? 0 : M.Lines.front());
        M.Lines = {Line};
        Primary.Memory.push_back(std::move(M));
      }
      Primary.SassRows += Header.SassRows;
      Primary.DuplicateRows += Header.DuplicateRows;
      if (std::find(Primary.MergedFiles.begin(), Primary.MergedFiles.end(), File) == Primary.MergedFiles.end())
        Primary.MergedFiles.push_back(File);
      Merged[S] = true;
    }
  }
  std::size_t Out = 0;
  for (std::size_t I = 0; I < Fns.size(); ++I)
    if (!Merged[I]) {
      if (Out != I)
        Fns[Out] = std::move(Fns[I]);
      ++Out;
    }
  Fns.resize(Out);
}

std::string_view sassMnemonic(std::string_view Sass) {
  std::size_t I = Sass.find_first_not_of(" \t");
  if (I != std::string_view::npos && Sass[I] == '@')
    I = Sass.find_first_not_of(" \t", Sass.find_first_of(" \t", I));
  if (I == std::string_view::npos)
    return {};
  const std::size_t End = std::min(Sass.find_first_of(" \t", I), Sass.size());
  return Sass.substr(I, End - I);
}

bool sassPredicated(std::string_view Sass) {
  const std::size_t I = Sass.find_first_not_of(" \t");
  return I != std::string_view::npos && Sass[I] == '@';
}

int accessBits(std::string_view Sass) {
  const std::string_view Mnemonic = sassMnemonic(Sass);
  int Bits = 32;
  for (std::size_t Dot = Mnemonic.find('.'); Dot != std::string_view::npos; Dot = Mnemonic.find('.', Dot + 1)) {
    const std::string_view Suffix = Mnemonic.substr(Dot + 1, Mnemonic.find('.', Dot + 1) - Dot - 1);
    if (Suffix == "64")
      Bits = 64;
    else if (Suffix == "128")
      Bits = 128;
    else if (Suffix == "U8" || Suffix == "S8")
      Bits = 8;
    else if (Suffix == "U16" || Suffix == "S16")
      Bits = 16;
  }
  return Bits;
}

std::vector<LineGroup> groupByLine(const FunctionSource &F) {
  std::vector<LineGroup> Out;
  for (const auto &M : F.Memory) {
    const int L = M.Lines.empty() ? 0 : M.Lines.front();
    auto It = std::find_if(Out.begin(), Out.end(), [&](const LineGroup &G) {
      return G.Line == L && G.AddressSpace == M.AddressSpace && G.Operation == M.Operation;
    });
    if (It == Out.end()) {
      Out.push_back({});
      It = std::prev(Out.end());
      It->Line = L;
      It->AddressSpace = M.AddressSpace;
      It->Operation = M.Operation;
    }
    ++It->Instructions;
    It->WidestBits = std::max(It->WidestBits, accessBits(M.Sass));
    It->Executed += M.Executed;
    It->SharedWavefronts += M.SharedWavefronts;
    It->GlobalSectors += M.GlobalSectors;
    It->TagRequests += M.TagRequests;
    It->Sass.push_back(M.InlinedFrom.empty() ? M.Sass : M.Sass + " [" + M.InlinedFrom + "]");
  }
  std::sort(Out.begin(), Out.end(), [](const LineGroup &A, const LineGroup &B) {
    return std::tie(A.Line, A.AddressSpace, A.Operation) < std::tie(B.Line, B.AddressSpace, B.Operation);
  });
  return Out;
}

std::string trimNcuSource(std::string_view Text) {
  static const std::set<std::string> Keep = {"Line No",          "Source",         "Address",
                                             "Instructions Executed", "Address Space", "Access Operation",
                                             "L1 Tag Requests Global", "L1 Wavefronts Shared",
                                             "L2 Theoretical Sectors Global"};
  auto Quote = [](const std::vector<std::string> &F) {
    std::string O;
    for (std::size_t I = 0; I < F.size(); ++I) {
      O += I ? ",\"" : "\"";
      for (char C : F[I])
        O += C == '"' ? std::string("\"\"") : std::string(1, C);
      O += '"';
    }
    return O + "\n";
  };
  std::string Out;
  std::vector<std::size_t> Cols;
  int SpaceCol = -1, LineCol = -1, AddressCol = -1;
  std::size_t LineNo = 0, Pos = 0;
  while (Pos < Text.size()) {
    std::size_t End = Text.find('\n', Pos);
    if (End == std::string_view::npos)
      End = Text.size();
    const std::string_view Line = Text.substr(Pos, End - Pos);
    Pos = End + 1;
    ++LineNo;
    if (trim(Line).empty() || Line.front() == '=')
      continue;
    const auto F = splitCsvRecord(Line, LineNo);
    if (F[0] == "File Path" || F[0] == "Function Name") {
      Out += Quote(F);
      continue;
    }
    if (F[0] == "Line No" || (F[0] == "Address" && F.size() > 1 && F[1] == "Source")) {
      Cols.clear();
      SpaceCol = LineCol = AddressCol = -1;
      std::vector<std::string> H;
      for (std::size_t I = 0; I < F.size(); ++I)
        if (Keep.count(F[I])) {
          if (F[I] == "Address Space")
            SpaceCol = static_cast<int>(H.size());
          if (F[I] == "Line No")
            LineCol = static_cast<int>(H.size());
          if (F[I] == "Address")
            AddressCol = static_cast<int>(H.size());
          Cols.push_back(I);
          H.push_back(F[I]);
        }
      Out += Quote(H);
      continue;
    }
    std::vector<std::string> R;
    for (std::size_t I : Cols)
      R.push_back(I < F.size() ? F[I] : std::string());
    const bool CudaLine = LineCol >= 0 && !R[static_cast<std::size_t>(LineCol)].empty();
    const bool Memory = SpaceCol >= 0 && !R[static_cast<std::size_t>(SpaceCol)].empty() &&
                        R[static_cast<std::size_t>(SpaceCol)] != "-";
    if (CudaLine || Memory)
      Out += Quote(R);
    else if (AddressCol >= 0 && R[static_cast<std::size_t>(AddressCol)].rfind("0x", 0) == 0) {
      // Another instruction: its address only, so that a header section's
      // instructions can still be placed between the kernel's lines.
      std::vector<std::string> Bare(R.size());
      Bare[static_cast<std::size_t>(AddressCol)] = R[static_cast<std::size_t>(AddressCol)];
      Out += Quote(Bare);
    }
  }
  return Out;
}

} // namespace bankwise::verify
