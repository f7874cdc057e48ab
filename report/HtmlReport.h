// The HTML report (`analyze --html`, `lint --html`): one self-contained
// page, inline CSS and inline SVG, no script and nothing fetched. Per access
// site: a bank map of its worst warp (lanes against the 32 banks, as seed
// 002's Figures 4 and 6 draw a warp), a histogram of its cost over every
// warp execution (or every size class), its layout before and after, and
// its source lines. This file only draws: the figures come in as values
// (report/SiteFigures.h makes them from the analysis), and every text is
// escaped here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankwise::report {

/// One warp access, drawn lane by lane. Shared memory: lanes against the
/// 32 banks of 4-byte words, each word a lane touches in its bank, colored
/// by its turn among the bank's distinct words (1 = first wavefront; an
/// 8-byte access counts per half warp, as sm_90 serves it). Global memory:
/// lanes against the 32-byte sectors from the lowest one touched.
struct BankMap {
  std::string Caption;
  bool Shared = true;
  std::int64_t ElemBytes = 4;
  /// Byte address of each lane; -1 for a lane that does not access, -2 for
  /// one whose address is not known.
  std::array<std::int64_t, 32> ByteAddrs{};
  std::int64_t Cost = 0;    ///< the model's figure for this warp
  std::string CostName;     ///< "wavefronts", "sectors"
};

/// Bars of a cost's distribution: how many warp executions (or sizes) had
/// each value.
struct Histogram {
  std::string Caption;
  std::string XLabel; ///< "wavefronts per warp"
  std::string YLabel; ///< "warp executions"
  std::vector<std::pair<std::int64_t, std::int64_t>> Bars; ///< (cost, count), cost ascending
};

/// The bank of each element of an array's first rows under one layout
/// (row-major, Cols a row), -1 where there is no element.
struct ElementGrid {
  std::string Caption;
  std::int64_t Cols = 0;
  std::vector<std::int64_t> Banks;
};

/// One layout of a site's array: the worst warp's bank map under it and
/// where its first elements fall.
struct LayoutPanel {
  std::string Name; ///< "as written: raw", "layout auto: pad(1)"
  std::optional<BankMap> Map;
  std::optional<ElementGrid> Grid;
};

/// Lines of a source file around a site.
struct SourceExcerpt {
  std::string File;
  int FirstLine = 1;  ///< the number of Lines.front()
  int Line = 0, Col = 0; ///< the site
  std::vector<std::string> Lines;
};

struct Site {
  std::string Id;      ///< anchor, unique in the page
  std::string Heading; ///< "k.bw:12:5: shared read of 'tile' (raw)"
  std::vector<std::string> Figures; ///< lines of figures, as the text report
  std::vector<std::string> Notes;   ///< what the figures rest on
  std::optional<BankMap> Worst;
  std::optional<Histogram> Costs;
  std::vector<LayoutPanel> Layouts; ///< before, after (or each fix)
  SourceExcerpt Source;
  /// A section shows its sites in decreasing Rank, source order among
  /// equals: the page leads with what costs most.
  std::int64_t Rank = 0;
};

struct Section {
  std::string Heading; ///< a kernel
  std::vector<std::string> Lines;
  std::vector<Site> Sites;
};

struct Document {
  std::string Title;
  std::vector<std::string> Summary;
  std::vector<Section> Sections;
};

/// Text made safe in HTML content and attribute values: & < > " ' escaped.
std::string escapeHtml(std::string_view Text);

/// The SVG of one warp (class "bank-map"): a <rect class="access"> per word
/// a lane touches, with data-lane, data-bank (or data-sector) and
/// data-turn; a stride-2 warp of 4-byte words puts lanes 0 and 16 in bank 0,
/// turns 1 and 2.
std::string bankMapSvg(const BankMap &M);

/// The SVG of a histogram (class "histogram"): a <rect class="bar"> per
/// (cost, count) with data-cost and data-count.
std::string histogramSvg(const Histogram &H);

/// The SVG of an element grid (class "element-grid"): a <rect class="elem">
/// per element with data-bank.
std::string elementGridSvg(const ElementGrid &G);

/// The whole page.
std::string renderHtml(const Document &D);

} // namespace bankwise::report
