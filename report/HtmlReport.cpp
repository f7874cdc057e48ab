#include "report/HtmlReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace bankwise::report {

namespace {

/// Fill colors of the turns 1, 2, ... (then repeating): the first
/// wavefront green, later ones warmer.
constexpr std::array<const char *, 8> TurnColors = {"#4caf50", "#ffb300", "#e53935", "#8e24aa",
                                                    "#1e88e5", "#6d4c41", "#00897b", "#f06292"};

const char *turnColor(std::int64_t Turn) { return TurnColors[static_cast<std::size_t>((Turn - 1) % 8)]; }

/// A bank's color in the element grid: 32 hues around the wheel.
std::string bankColor(std::int64_t Bank) { return fmt::format("hsl({},70%,72%)", (Bank % 32) * 360 / 32); }

constexpr int Cell = 13, Left = 44, Top = 34;

std::string svgOpen(const char *Class, int W, int H, std::string_view Label) {
  return fmt::format("<svg class=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                     "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
                     Class, W, H, W, H, escapeHtml(Label));
}

/// One word a lane touches: its column (bank or sector) and its turn.
struct Touch {
  int Lane;
  std::int64_t Col;
  std::int64_t Turn;
};

/// Shared memory: the words of each lane, turn = the word's place among
/// the distinct words of its bank (per half warp for 8-byte accesses);
/// Load = the most distinct words in each bank.
std::vector<Touch> sharedTouches(const BankMap &M, std::array<std::int64_t, 32> &Load) {
  Load.fill(0);
  const std::int64_t Words = std::max<std::int64_t>(1, M.ElemBytes / 4);
  const bool Halves = M.ElemBytes == 8;
  std::vector<Touch> Out;
  for (int Half = 0; Half < (Halves ? 2 : 1); ++Half) {
    const int From = Halves ? Half * 16 : 0, To = Halves ? From + 16 : 32;
    std::array<std::set<std::int64_t>, 32> InBank;
    for (int L = From; L < To; ++L)
      if (M.ByteAddrs[static_cast<std::size_t>(L)] >= 0)
        for (std::int64_t K = 0; K < Words; ++K) {
          const std::int64_t W = M.ByteAddrs[static_cast<std::size_t>(L)] / 4 + K;
          InBank[static_cast<std::size_t>(W % 32)].insert(W);
        }
    for (int L = From; L < To; ++L)
      if (M.ByteAddrs[static_cast<std::size_t>(L)] >= 0)
        for (std::int64_t K = 0; K < Words; ++K) {
          const std::int64_t W = M.ByteAddrs[static_cast<std::size_t>(L)] / 4 + K;
          const auto &Set = InBank[static_cast<std::size_t>(W % 32)];
          Out.push_back({L, W % 32, std::distance(Set.begin(), Set.find(W)) + 1});
        }
    for (std::size_t B = 0; B < 32; ++B)
      Load[B] = std::max<std::int64_t>(Load[B], static_cast<std::int64_t>(InBank[B].size()));
  }
  return Out;
}

/// Global memory: the 32-byte sectors of each lane from the lowest one,
/// turn = the 128-byte line's place among the lines touched.
std::vector<Touch> globalTouches(const BankMap &M, std::array<std::int64_t, 32> &Load, std::int64_t &Base,
                                 int &Beyond) {
  Load.fill(0);
  Base = -1;
  Beyond = 0;
  std::set<std::int64_t> Lines;
  for (std::int64_t A : M.ByteAddrs)
    if (A >= 0) {
      Base = Base < 0 ? A / 32 : std::min(Base, A / 32);
      for (std::int64_t B = A; B < A + std::max<std::int64_t>(1, M.ElemBytes); B += 32)
        Lines.insert(B / 128);
    }
  std::vector<Touch> Out;
  for (int L = 0; L < 32; ++L) {
    const std::int64_t A = M.ByteAddrs[static_cast<std::size_t>(L)];
    if (A < 0)
      continue;
    for (std::int64_t S = A / 32; S <= (A + std::max<std::int64_t>(1, M.ElemBytes) - 1) / 32; ++S) {
      const std::int64_t Col = S - Base;
      if (Col >= 32) {
        ++Beyond;
        continue;
      }
      Load[static_cast<std::size_t>(Col)] = 1;
      Out.push_back({L, Col, std::distance(Lines.begin(), Lines.find(S * 32 / 128)) + 1});
    }
  }
  return Out;
}

} // namespace

std::string escapeHtml(std::string_view Text) {
  std::string Out;
  Out.reserve(Text.size());
  for (char C : Text) {
    switch (C) {
    case '&': Out += "&amp;"; break;
    case '<': Out += "&lt;"; break;
    case '>': Out += "&gt;"; break;
    case '"': Out += "&quot;"; break;
    case '\'': Out += "&#39;"; break;
    default: Out += C;
    }
  }
  return Out;
}

std::string bankMapSvg(const BankMap &M) {
  std::array<std::int64_t, 32> Load{};
  std::int64_t Base = 0;
  int Beyond = 0;
  const std::vector<Touch> Touches = M.Shared ? sharedTouches(M, Load) : globalTouches(M, Load, Base, Beyond);
  const int Grid = 32 * Cell, BarH = 40;
  const int W = Left + Grid + 12, H = Top + Grid + BarH + 34;
  std::string S = svgOpen("bank-map", W, H,
                          fmt::format("{}: {} {}", M.Caption, M.Cost, M.CostName.empty() ? "cost" : M.CostName));
  S += fmt::format("<text x=\"{}\" y=\"12\" class=\"axis\">{} &#8594;</text>\n", Left,
                   M.Shared ? "bank (4-byte word mod 32)" : fmt::format("32-byte sector from {}", Base * 32));
  S += fmt::format("<text x=\"4\" y=\"{}\" class=\"axis\">lane</text>\n", Top - 6);
  for (int C = 0; C < 32; C += 4)
    S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\">{}{}</text>\n", Left + C * Cell + 1, Top - 6,
                     M.Shared ? "" : "+", C);
  for (int L = 0; L < 32; ++L) {
    const int Y = Top + L * Cell;
    S += fmt::format("<rect class=\"row{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", L % 2 ? " odd" : "",
                     Left, Y, Grid, Cell);
    if (L % 4 == 0)
      S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">{}</text>\n", Left - 4,
                       Y + Cell - 3, L);
    const std::int64_t A = M.ByteAddrs[static_cast<std::size_t>(L)];
    if (A == -2)
      S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\">index not known</text>\n", Left + 4, Y + Cell - 3);
  }
  for (int C = 0; C <= 32; C += 8)
    S += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", Left + C * Cell, Top,
                     Top + Grid);
  for (const Touch &T : Touches) {
    const int X = Left + static_cast<int>(T.Col) * Cell, Y = Top + T.Lane * Cell;
    S += fmt::format("<rect class=\"access\" data-lane=\"{}\" data-{}=\"{}\" data-turn=\"{}\" x=\"{}\" y=\"{}\" "
                     "width=\"{}\" height=\"{}\" fill=\"{}\"><title>lane {} {} {}, {} {}</title></rect>\n",
                     T.Lane, M.Shared ? "bank" : "sector", T.Col, T.Turn, X + 1, Y + 1, Cell - 2, Cell - 2,
                     turnColor(T.Turn), T.Lane, M.Shared ? "bank" : "sector +", T.Col,
                     M.Shared ? "turn" : "line", T.Turn);
    if (T.Turn > 1 || M.Shared)
      S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"turn\">{}</text>\n", X + Cell / 2, Y + Cell - 3, T.Turn);
  }
  // The load of each column under the grid: distinct words per bank (the
  // tallest bars make the wavefronts), or which sectors are fetched.
  const std::int64_t MaxLoad = std::max<std::int64_t>(1, *std::max_element(Load.begin(), Load.end()));
  const int BarTop = Top + Grid + 6;
  for (int C = 0; C < 32; ++C) {
    const std::int64_t V = Load[static_cast<std::size_t>(C)];
    if (V == 0)
      continue;
    const int Hgt = static_cast<int>(V * (BarH - 12) / MaxLoad);
    S += fmt::format("<rect class=\"load{}\" data-col=\"{}\" data-load=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
                     "height=\"{}\"/>\n",
                     V == MaxLoad && M.Shared && MaxLoad > 1 ? " worst" : "", C, V, Left + C * Cell + 1,
                     BarTop + (BarH - 12) - Hgt, Cell - 2, Hgt);
    if (M.Shared)
      S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"turn\">{}</text>\n", Left + C * Cell + Cell / 2,
                       BarTop + BarH - 2, V);
  }
  S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">{}: {} {}{}</text>\n", Left, H - 6,
                   M.Shared ? "distinct words per bank" : "sectors fetched", M.Cost,
                   M.CostName.empty() ? "cost" : M.CostName,
                   Beyond ? fmt::format(" ({} sector{} past the 32 drawn)", Beyond, Beyond == 1 ? "" : "s") : "");
  S += "</svg>\n";
  return S;
}

std::string histogramSvg(const Histogram &H) {
  const int BarW = std::clamp<int>(360 / std::max<int>(1, static_cast<int>(H.Bars.size())), 8, 48);
  const int Plot = 150, L = 56, T = 16;
  // Wide enough for the bars and for the axis label (about 7 px a character).
  const int W = std::max({260, L + BarW * static_cast<int>(H.Bars.size()) + 20,
                          L + 7 * static_cast<int>(H.XLabel.size()) + 10}),
            Ht = T + Plot + 48;
  std::int64_t Max = 1;
  for (const auto &[Cost, Count] : H.Bars)
    Max = std::max(Max, Count);
  std::string S = svgOpen("histogram", W, Ht, H.Caption);
  S += fmt::format("<line class=\"axisline\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", L, T, T + Plot);
  S += fmt::format("<line class=\"axisline\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", L, T + Plot, W - 8);
  S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">{}</text>\n", L - 4, T + 8, Max);
  S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">0</text>\n", L - 4, T + Plot);
  S += fmt::format("<text x=\"4\" y=\"{}\" class=\"axis\" transform=\"rotate(-90 10 {})\">{}</text>\n",
                   T + Plot, T + Plot, escapeHtml(H.YLabel));
  for (std::size_t I = 0; I < H.Bars.size(); ++I) {
    const auto &[Cost, Count] = H.Bars[I];
    const int Hgt = std::max(1, static_cast<int>(static_cast<double>(Count) * Plot / static_cast<double>(Max)));
    const int X = L + 4 + static_cast<int>(I) * BarW;
    S += fmt::format("<rect class=\"bar\" data-cost=\"{}\" data-count=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
                     "height=\"{}\"><title>{}: {}</title></rect>\n",
                     Cost, Count, X, T + Plot - Hgt, BarW - 3, Hgt, Cost, Count);
    S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>\n", X + (BarW - 3) / 2,
                     T + Plot + 14, Cost);
  }
  S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">{}</text>\n", L, Ht - 8, escapeHtml(H.XLabel));
  S += "</svg>\n";
  return S;
}

std::string elementGridSvg(const ElementGrid &G) {
  const std::int64_t Cols = std::max<std::int64_t>(1, G.Cols);
  const std::int64_t Rows = (static_cast<std::int64_t>(G.Banks.size()) + Cols - 1) / Cols;
  const int C = 15, L = 40, T = 22;
  const int W = L + static_cast<int>(Cols) * C + 8, H = T + static_cast<int>(Rows) * C + 8;
  std::string S = svgOpen("element-grid", W, H, G.Caption);
  S += fmt::format("<text x=\"{}\" y=\"12\" class=\"axis\">column &#8594; (number: bank)</text>\n", L);
  for (std::int64_t R = 0; R < Rows; ++R) {
    S += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">row {}</text>\n", L - 3,
                     T + R * C + C - 4, R);
    for (std::int64_t J = 0; J < Cols; ++J) {
      const std::size_t I = static_cast<std::size_t>(R * Cols + J);
      if (I >= G.Banks.size() || G.Banks[I] < 0)
        continue;
      const int X = L + static_cast<int>(J) * C, Y = T + static_cast<int>(R) * C;
      S += fmt::format("<rect class=\"elem\" data-bank=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                       "fill=\"{}\"/><text x=\"{}\" y=\"{}\" class=\"turn\">{}</text>\n",
                       G.Banks[I], X, Y, C - 1, C - 1, bankColor(G.Banks[I]), X + C / 2, Y + C - 4, G.Banks[I]);
    }
  }
  S += "</svg>\n";
  return S;
}

namespace {

constexpr const char *Style = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#212121;background:#fafafa}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px solid #ccc}
h3{font-size:15px;margin:0 0 6px;font-family:ui-monospace,monospace}
.site{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 16px;margin:14px 0}
.figs{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
.layout{display:flex;flex-direction:column;gap:6px}
figure{margin:0}figcaption{font-size:12px;color:#555;max-width:480px;margin-top:2px}
ul.figures{margin:4px 0 8px 18px;padding:0;font-size:13px;font-family:ui-monospace,monospace}
p.note{font-size:12px;color:#555;margin:2px 0}
pre.source{background:#f4f4f4;border:1px solid #e0e0e0;padding:6px 8px;font-size:12px;overflow-x:auto;margin:8px 0 0}
pre.source .here{background:#fff3c4;display:inline-block;min-width:100%}
pre.source .ln{color:#999;user-select:none}
svg text{font-family:ui-monospace,monospace}
svg .tick{font-size:9px;fill:#555}svg .axis{font-size:11px;fill:#333}
svg .turn{font-size:8px;fill:#111;text-anchor:middle}
svg rect.row{fill:#fff}svg rect.row.odd{fill:#f2f2f2}svg line.grid{stroke:#bbb;stroke-width:0.5}
svg rect.load{fill:#90a4ae}svg rect.load.worst{fill:#e53935}svg rect.bar{fill:#5c6bc0}
svg line.axisline{stroke:#333}
.legend span{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;vertical-align:middle}
.legend{font-size:12px;color:#444}
)";

std::string figure(const std::string &Svg, const std::string &Caption) {
  return fmt::format("<figure>\n{}<figcaption>{}</figcaption>\n</figure>\n", Svg, escapeHtml(Caption));
}

std::string sourceHtml(const SourceExcerpt &X) {
  if (X.Lines.empty())
    return fmt::format("<p class=\"note\">source {} not readable</p>\n", escapeHtml(X.File));
  std::string S = fmt::format("<pre class=\"source\" title=\"{}\">", escapeHtml(X.File));
  for (std::size_t I = 0; I < X.Lines.size(); ++I) {
    const int N = X.FirstLine + static_cast<int>(I);
    const std::string Text = fmt::format("<span class=\"ln\">{:>5} </span>{}", N, escapeHtml(X.Lines[I]));
    S += N == X.Line ? fmt::format("<span class=\"here\">{}</span>\n", Text) : Text + "\n";
    if (N == X.Line && X.Col > 0) {
      std::string Caret(static_cast<std::size_t>(X.Col - 1), ' ');
      for (std::size_t C = 0; C < Caret.size() && C < X.Lines[I].size(); ++C)
        if (X.Lines[I][C] == '\t')
          Caret[C] = '\t';
      S += fmt::format("<span class=\"ln\">      </span>{}^\n", Caret);
    }
  }
  S += "</pre>\n";
  return S;
}

std::string legend() {
  std::string S = "<div class=\"legend\">turn in its bank (wavefront):";
  for (int T = 1; T <= 4; ++T)
    S += fmt::format("<span style=\"background:{}\"></span>{}", turnColor(T), T);
  return S + " ...</div>\n";
}

std::string siteHtml(const Site &X) {
  std::string S = fmt::format("<section class=\"site\" id=\"{}\">\n<h3>{}</h3>\n", escapeHtml(X.Id),
                              escapeHtml(X.Heading));
  if (!X.Figures.empty()) {
    S += "<ul class=\"figures\">\n";
    for (const std::string &F : X.Figures)
      S += fmt::format("<li>{}</li>\n", escapeHtml(F));
    S += "</ul>\n";
  }
  for (const std::string &N : X.Notes)
    S += fmt::format("<p class=\"note\">{}</p>\n", escapeHtml(N));
  S += "<div class=\"figs\">\n";
  if (X.Worst)
    S += figure(bankMapSvg(*X.Worst), X.Worst->Caption);
  if (X.Costs)
    S += figure(histogramSvg(*X.Costs), X.Costs->Caption);
  S += "</div>\n";
  if (X.Worst && X.Worst->Shared)
    S += legend();
  if (!X.Layouts.empty()) {
    S += "<div class=\"figs layouts\">\n";
    for (const LayoutPanel &P : X.Layouts) {
      S += fmt::format("<div class=\"layout\"><p class=\"note\"><b>{}</b></p>\n", escapeHtml(P.Name));
      if (P.Map)
        S += figure(bankMapSvg(*P.Map), P.Map->Caption);
      if (P.Grid)
        S += figure(elementGridSvg(*P.Grid), P.Grid->Caption);
      S += "</div>\n";
    }
    S += "</div>\n";
  }
  S += sourceHtml(X.Source);
  S += "</section>\n";
  return S;
}

} // namespace

std::string renderHtml(const Document &D) {
  std::string S = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                              "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
                              escapeHtml(D.Title), Style, escapeHtml(D.Title));
  for (const std::string &L : D.Summary)
    S += fmt::format("<p class=\"note\">{}</p>\n", escapeHtml(L));
  for (const Section &Sec : D.Sections) {
    S += fmt::format("<h2>{}</h2>\n", escapeHtml(Sec.Heading));
    for (const std::string &L : Sec.Lines)
      S += fmt::format("<p class=\"note\">{}</p>\n", escapeHtml(L));
    std::vector<const Site *> Order;
    for (const Site &X : Sec.Sites)
      Order.push_back(&X);
    std::stable_sort(Order.begin(), Order.end(), [](const Site *A, const Site *B) { return A->Rank > B->Rank; });
    for (const Site *X : Order)
      S += siteHtml(*X);
  }
  S += "</body>\n</html>\n";
  return S;
}

} // namespace bankwise::report
