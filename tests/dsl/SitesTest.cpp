// Access sites' ids (ir/Sites.h): numbered when a program is parsed, kept
// by copies and binding, fresh ones for accesses added later, found by id,
// printed by --dump-ir-after's printer as comments that parse back.
#include "TestUtil.h"
#include "ir/Bind.h"
#include "ir/Printer.h"
#include "ir/Sites.h"

#include <doctest/doctest.h>

#include <set>

using namespace bankwise;
using namespace bankwise::ir;

namespace {

const char *Source = R"(param N = 64
param R
global a: f32[N]
global b: f32[N]
global h: i32[N]
kernel k(idx: global i32[N]) threads N {
  let i = idx[tid]
  for j in 0..idx[0] {
    b[i] = a[(i + j) % N]
  }
  if idx[1] > 0 {
    atomic_add(h[i], 1)
  }
}
kernel z() grid (R) block (32) {
  b[tid] = 0
}
)";

/// Every site of P's kernel K: id -> array.
std::map<int, std::string> sites(const Kernel &K) {
  std::map<int, std::string> Out;
  for (int Id = 1; Id < 100; ++Id)
    if (const ArrayRead *R = findSite(K, Id))
      Out[Id] = R->Array;
  return Out;
}

} // namespace

TEST_CASE("sites: the parser numbers every access once, in program order") {
  test::Parsed P = test::parse(Source);
  REQUIRE_MESSAGE(!P.Diags.hasErrors(), test::render(P.Diags));
  // idx[tid]; idx[0]; b[i], a[...]; idx[1]; h[i] (the atomic's element) -- then z's b[tid].
  CHECK(sites(P.Program.Kernels[0]) ==
        std::map<int, std::string>{{1, "idx"}, {2, "idx"}, {3, "b"}, {4, "a"}, {5, "idx"}, {6, "h"}});
  CHECK(sites(P.Program.Kernels[1]) == std::map<int, std::string>{{7, "b"}});
  CHECK(findSite(P.Program.Kernels[0], 0) == nullptr);
  CHECK(findSite(P.Program.Kernels[0], 7) == nullptr); // another kernel's
}

TEST_CASE("sites: copies and bound sizes keep the ids, and new accesses get the next free ones") {
  test::Parsed P = test::parse(Source);
  REQUIRE(!P.Diags.hasErrors());
  const Program Bound = bindParams(P.Program, {{"R", 96}});
  for (std::size_t K = 0; K < 2; ++K)
    CHECK(sites(Bound.Kernels[K]) == sites(P.Program.Kernels[K]));
  // A node of the copy is found by the original's id: no parallel walk.
  const ArrayRead *Orig = findSite(P.Program.Kernels[0], 4);
  const ArrayRead *Copy = findSite(Bound.Kernels[0], Orig->Site);
  REQUIRE(Copy != nullptr);
  CHECK(Copy != Orig);
  CHECK(*Copy == *Orig);

  Program Grown = Bound;
  Stmt Extra = Grown.Kernels[1].Body[0]; // b[tid] = 0, a copy: id 7 kept...
  std::get<ArrayRead>(Extra.as<Assign>()->Target).Site = 0; // ...unless made anew
  Grown.Kernels[1].Body.push_back(Extra);
  numberSites(Grown);
  CHECK(sites(Grown.Kernels[1]) == std::map<int, std::string>{{7, "b"}, {8, "b"}});
  CHECK(sites(Grown.Kernels[0]) == sites(P.Program.Kernels[0]));
  CHECK(numberSites(Grown) == 8); // numbering again changes nothing
  CHECK(sites(Grown.Kernels[1]) == std::map<int, std::string>{{7, "b"}, {8, "b"}});
  // A pass that replaced kernel z's accesses: new ones above the highest
  // id before the pass, so 7 and 8 name nothing now rather than others.
  Grown.Kernels[1].Body.clear();
  Grown.Kernels[1].Body.push_back(Extra);
  CHECK(numberSites(Grown, 8) == 9);
  CHECK(sites(Grown.Kernels[1]) == std::map<int, std::string>{{9, "b"}});
}

TEST_CASE("sites: the ids are not part of equality, and printed they parse back") {
  test::Parsed P = test::parse(Source);
  REQUIRE(!P.Diags.hasErrors());
  Program Renumbered = P.Program;
  for (Kernel &K : Renumbered.Kernels)
    for (Stmt &S : K.Body)
      if (auto *A = S.as<Assign>(); A && std::holds_alternative<ArrayRead>(A->Target))
        std::get<ArrayRead>(A->Target).Site = 99;
  CHECK(Renumbered == P.Program);

  const std::string Text = print(P.Program, PrintOptions{.SiteIds = true});
  CHECK(Text.find("  let i = idx[tid]  # sites #1 idx\n") != std::string::npos);
  CHECK(Text.find("  for j in 0..idx[0] {  # sites #2 idx\n") != std::string::npos);
  CHECK(Text.find("    b[i] = a[(i + j) % N]  # sites #3 b, #4 a\n") != std::string::npos);
  CHECK(Text.find("  if idx[1] > 0 {  # sites #5 idx\n") != std::string::npos);
  CHECK(Text.find("    atomic_add(h[i], 1)  # sites #6 h\n") != std::string::npos);
  CHECK(print(P.Program).find("# sites") == std::string::npos);
  test::Parsed Back = test::parse(Text);
  REQUIRE_MESSAGE(!Back.Diags.hasErrors(), test::render(Back.Diags));
  CHECK(Back.Program == P.Program);
  for (std::size_t K = 0; K < 2; ++K)
    CHECK(sites(Back.Program.Kernels[K]) == sites(P.Program.Kernels[K]));
}
