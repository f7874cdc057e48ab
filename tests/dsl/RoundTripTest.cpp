// parse(print(x)) == x on every sample, and the printer is a fixed point.
#include "TestUtil.h"
#include "ir/Bind.h"
#include "ir/Printer.h"

#include <doctest/doctest.h>

using namespace bankwise;

namespace {

/// Text, P printed, parses cleanly back to P and prints as Text again.
void checkRoundTrip(const ir::Program &P, const std::string &Text) {
  test::Parsed Q = test::parse(Text, "printed.bw");
  CHECK_MESSAGE(Q.Diags.diagnostics().empty(), test::render(Q.Diags) << "\n" << Text);
  CHECK_MESSAGE(Q.Program == P, Text);
  CHECK(ir::print(Q.Program) == Text);
}

} // namespace

TEST_CASE("every sample parses cleanly and round-trips through the printer") {
  const auto Files = test::bwFiles(BANKWISE_SAMPLES_DIR);
  REQUIRE(Files.size() >= 15);
  for (const std::string &Path : Files) {
    INFO("sample: ", Path);
    test::Parsed P = test::parse(test::readFile(Path), Path);
    CHECK_MESSAGE(P.Diags.diagnostics().empty(), test::render(P.Diags));
    REQUIRE(!P.Program.Kernels.empty());

    const std::string Text = ir::print(P.Program);
    test::Parsed Q = test::parse(Text, "printed.bw");
    CHECK_MESSAGE(Q.Diags.diagnostics().empty(), test::render(Q.Diags) << "\n"
                                                                       << Text);
    CHECK_MESSAGE(Q.Program == P.Program, Text);
    CHECK(ir::print(Q.Program) == Text);
  }
}

TEST_CASE("a round trip keeps -D overrides when they are passed again") {
  const std::string Src =
      test::readFile(std::string(BANKWISE_SAMPLES_DIR) + "/transpose_tiled.bw");
  const dsl::ParamOverrides D{{"N", 4096}};
  test::Parsed P = test::parse(Src, "t.bw", D);
  REQUIRE(!P.Diags.hasErrors());
  CHECK(P.Program.Params[0].Value == 4096);
  CHECK(P.Program.Params[0].Overridden);
  CHECK(P.Program.Kernels[0].Params[0].Shape ==
        std::vector<std::int64_t>{4096, 4096});
  test::Parsed Q = test::parse(ir::print(P.Program), "p.bw", D);
  CHECK(Q.Program == P.Program);
}

TEST_CASE("the tiled transpose sample resolves to the expected IR") {
  test::Parsed P = test::parse(test::readFile(
      std::string(BANKWISE_SAMPLES_DIR) + "/transpose_tiled.bw"));
  REQUIRE(!P.Diags.hasErrors());
  const ir::Program &Prog = P.Program;
  REQUIRE(Prog.Mach);
  CHECK(Prog.Mach->Target == "sm_90");
  const ir::Kernel &K = Prog.Kernels.at(0);
  CHECK(K.Geo.GridDim == std::array<std::int64_t, 3>{256, 256, 1});
  CHECK(K.Geo.BlockDim == std::array<std::int64_t, 3>{32, 8, 1});
  const auto *Tile = K.Body.at(0).as<ir::ArrayDecl>();
  REQUIRE(Tile);
  CHECK(Tile->Decl.Space == ir::MemSpace::Shared);
  CHECK(Tile->Decl.allocatedBytes() == 4096);
  const auto *Loop = K.Body.at(1).as<ir::For>();
  REQUIRE(Loop);
  const auto *Store = Loop->Body.at(0).as<ir::Assign>();
  REQUIRE(Store);
  // tile[ty + 8 * k][tx] = in[...]: k resolves to the loop variable.
  const auto &Target = std::get<ir::ArrayRead>(Store->Target);
  const auto *Row = Target.Indices.at(0).as<ir::Binary>();
  REQUIRE(Row);
  const auto *Scaled = Row->Rhs->as<ir::Binary>();
  REQUIRE(Scaled);
  CHECK(Scaled->Rhs->as<ir::VarRef>()->Kind == ir::VarKind::Loop);
  CHECK(Store->Value.as<ir::ArrayRead>()->Array == "in");
  CHECK(Store->Value.Loc.Line == 14);
  CHECK(Store->Value.Loc.Col == 28);
}

TEST_CASE("runtime params: no value, a where constraint, derived params, -D binds") {
  const std::string Src = "param R where R >= 1 && R % 4 == 0\n"
                          "param C\n"
                          "param RC = R * C\n"
                          "param K = 8 where K > 2\n"
                          "kernel k(a: global f32[R][C]) grid (RC / 32) block (32) {\n"
                          "  a[tid / C][tid % C] = 0\n"
                          "}\n";
  test::Parsed P = test::parse(Src, "rt.bw");
  REQUIRE_MESSAGE(!P.Diags.hasErrors(), test::render(P.Diags));
  const ir::Program &Prog = P.Program;
  CHECK(Prog.runtimeParams() == std::vector<std::string>{"R", "C", "RC"});
  CHECK(!Prog.Params[0].Init);
  REQUIRE(Prog.Params[0].Where);
  CHECK(!Prog.Params[3].Runtime);
  CHECK(Prog.Params[3].Value == 8);
  const std::string Text = ir::print(Prog);
  CHECK(Text.find("param R where R >= 1 && R % 4 == 0\nparam C\nparam RC = R * C\n") !=
        std::string::npos);
  test::Parsed Q = test::parse(Text, "printed.bw");
  CHECK(Q.Program == Prog);

  test::Parsed B = test::parse(Src, "rt.bw", {{"R", 8}, {"C", 12}});
  REQUIRE_MESSAGE(!B.Diags.hasErrors(), test::render(B.Diags));
  CHECK(B.Program.runtimeParams().empty());
  CHECK(B.Program.findParam("RC")->Value == 96);
  CHECK(B.Program.Kernels[0].Params[0].Shape == std::vector<std::int64_t>{8, 12});
  CHECK(B.Program.Kernels[0].Geo.GridDim[0] == 3);

  test::Parsed Bad = test::parse(Src, "rt.bw", {{"R", 6}, {"C", 12}});
  CHECK(Bad.Diags.hasErrors());
}

TEST_CASE("bindParams evaluates shapes and grids as -D does, and checks constraints") {
  const std::string Src = "param R where R % 4 == 0\n"
                          "param C\n"
                          "param RC = R * C\n"
                          "kernel k(a: global f32[R][C], b: global f32[RC]) grid ((C + 31) / 32, R) block (32) {\n"
                          "  a[by][tid] = b[0]\n"
                          "}\n";
  test::Parsed P = test::parse(Src, "rt.bw");
  REQUIRE_MESSAGE(!P.Diags.hasErrors(), test::render(P.Diags));
  const ir::Program Bound = ir::bindParams(P.Program, {{"R", 8}, {"C", 100}});
  test::Parsed D = test::parse(Src, "rt.bw", {{"R", 8}, {"C", 100}});
  REQUIRE(!D.Diags.hasErrors());
  CHECK(Bound == D.Program);
  CHECK(Bound.Kernels[0].Geo.GridDim == std::array<std::int64_t, 3>{4, 8, 1});
  CHECK(Bound.Kernels[0].Params[1].Shape == std::vector<std::int64_t>{800});
  // Partially bound: C stays runtime, and so does RC.
  const ir::Program Half = ir::bindParams(P.Program, {{"R", 8}});
  CHECK(Half.runtimeParams() == std::vector<std::string>{"C", "RC"});
  CHECK_THROWS_WITH_AS(ir::bindParams(P.Program, {{"R", 6}, {"C", 1}}),
                       "param 'R' = 6 does not satisfy its constraint 'R % 4 == 0'", UserError);
  CHECK_THROWS_AS(ir::bindParams(P.Program, {{"R", 8}, {"C", 0}}), UserError);
  CHECK_THROWS_AS(ir::bindParams(P.Program, {{"RC", 8}}), UserError);
}

TEST_CASE("CUDA habits: compound assignment, while, '?:', float literals, typed locals, geometry words") {
  const std::string Src = "target sm_90\n"
                          "param N\n"
                          "kernel k(a: global f32[N], h: global i32[64]) grid (N / 64) block (64) {\n"
                          "  let i: i32 = bx * bdx + tx\n"
                          "  let s: f32 = 1e-3\n"
                          "  let c = 0\n"
                          "  while c < gdx { c += 1; s *= 2.5f }\n"
                          "  a[i] += s * 0.5 + (tx < 8 ? a[i] : 1_000.25)\n"
                          "  h[tx] <<= (tx & 1) == 0 ? 1 : tx < 9 ? 2 : 3\n"
                          "  a[i] = (tx > 1 ? 1 : 0) ? 3.0 : -(tx < 2 ? 1.0 : 2)\n"
                          "}\n";
  test::Parsed P = test::parse(Src, "habits.bw");
  REQUIRE_MESSAGE(P.Diags.diagnostics().empty(), test::render(P.Diags));
  const std::string Text = ir::print(P.Program);
  // The sugar survives printing; the geometry words print as the launch.
  CHECK(Text.find("let i: i32 = bx * 64 + tx") != std::string::npos);
  CHECK(Text.find("let s: f32 = 0.001") != std::string::npos);
  CHECK(Text.find("while c < N / 64 {") != std::string::npos);
  CHECK(Text.find("s *= 2.5") != std::string::npos);
  CHECK(Text.find("a[i] += s * 0.5 + (tx < 8 ? a[i] : 1000.25)") != std::string::npos);
  CHECK(Text.find("h[tx] <<= (tx & 1) == 0 ? 1 : tx < 9 ? 2 : 3") != std::string::npos);
  CHECK(Text.find("a[i] = (tx > 1 ? 1 : 0) ? 3.0 : -(tx < 2 ? 1.0 : 2)") != std::string::npos);
  checkRoundTrip(P.Program, Text);
  // `a[i] += v` is the assignment `a[i] = a[i] + v`, marked compound.
  const auto &Body = P.Program.Kernels[0].Body;
  const auto *A = Body[4].as<ir::Assign>();
  REQUIRE(A);
  CHECK(A->Compound == ir::BinaryOp::Add);
  REQUIRE(A->Value.is<ir::Binary>());
  CHECK(A->Value.as<ir::Binary>()->Lhs->is<ir::ArrayRead>());
}

TEST_CASE("atomics: a statement, a let's value and a local's value, on shared and global elements") {
  const std::string Src = "target sm_90\n"
                          "kernel k(h: global u32[256], f: global f32[8], c: global u64[1], m: global i32[4]) "
                          "grid (2) block (64) {\n"
                          "  shared s: i32[64]\n"
                          "  s[tx] = 0\n"
                          "  sync\n"
                          "  atomic_add(h[tx * 4 % 256], 1)\n"
                          "  let old = atomic_sub(s[tx % 8], tx + 1)\n"
                          "  atomic_add(f[tx % 8], 0.5)\n"
                          "  let got: i64 = atomic_cas(c[0], 7, tx)\n"
                          "  old = atomic_max(m[bx], old)\n"
                          "  atomic_min(m[2], -1); atomic_and(s[0], 3); atomic_or(s[1], tx); atomic_xor(s[2], tx)\n"
                          "  atomic_exch(f[0], 2.5); atomic_inc(h[0], 9); atomic_dec(h[1], 9)\n"
                          "  h[got % 2] = 1\n"
                          "}\n";
  test::Parsed P = test::parse(Src, "atomics.bw");
  REQUIRE_MESSAGE(P.Diags.diagnostics().empty(), test::render(P.Diags));
  const std::string Text = ir::print(P.Program);
  for (const char *Line : {"  atomic_add(h[tx * 4 % 256], 1)\n", "  let old = atomic_sub(s[tx % 8], tx + 1)\n",
                           "  atomic_add(f[tx % 8], 0.5)\n", "  let got: i64 = atomic_cas(c[0], 7, tx)\n",
                           "  old = atomic_max(m[bx], old)\n", "  atomic_min(m[2], -1)\n", "  atomic_xor(s[2], tx)\n",
                           "  atomic_exch(f[0], 2.5)\n", "  atomic_inc(h[0], 9)\n", "  atomic_dec(h[1], 9)\n"})
    CHECK_MESSAGE(Text.find(Line) != std::string::npos, Line << " not in\n" << Text);
  checkRoundTrip(P.Program, Text);
  // The nodes: an expression statement holding the atomic, a let whose
  // initializer is one, an assignment whose value is one.
  const auto &Body = P.Program.Kernels[0].Body;
  const auto *X = Body[3].as<ir::ExprStmt>();
  REQUIRE(X);
  const auto *A = X->Value.as<ir::Atomic>();
  REQUIRE(A);
  CHECK(A->Op == ir::AtomicOp::Add);
  CHECK(A->Target.Array == "h");
  REQUIRE(A->Args.size() == 1);
  CHECK(A->Args[0] == ir::makeInt(1));
  const auto *L = Body[6].as<ir::Let>();
  REQUIRE(L);
  const auto *Cas = L->Init.as<ir::Atomic>();
  REQUIRE(Cas);
  CHECK(Cas->Op == ir::AtomicOp::Cas);
  CHECK(Cas->Args.size() == 2);
  const auto *As = Body[7].as<ir::Assign>();
  REQUIRE(As);
  CHECK(As->Value.is<ir::Atomic>());
  // An atomic differs from another by its op, element or values.
  ir::Atomic Other = *A;
  Other.Op = ir::AtomicOp::Sub;
  CHECK(!(Other == *A));
  Other = *A;
  Other.Target = ir::ArrayRead{L->Init.as<ir::Atomic>()->Target.Array, A->Target.Indices};
  CHECK(!(Other == *A));
  Other = *A;
  Other.Args.push_back(ir::makeInt(2));
  CHECK(!(Other == *A));
}

TEST_CASE("warp shuffles: the four kinds, nested, in indices and values, round-trip") {
  const std::string Src = "target sm_90\n"
                          "kernel k(a: global f32[256], b: global i32[256]) grid (1) block (256) {\n"
                          "  let v = a[tid]\n"
                          "  let s = v + shfl_down(v, 16) + shfl_up(v, 1)\n"
                          "  let j = shfl_xor(lane, 1)\n"
                          "  b[warp * 32 + j] = shfl(shfl_xor(tx, 3), lane / 2)\n"
                          "  a[tid] = s * shfl(s, 0)\n"
                          "}\n";
  test::Parsed P = test::parse(Src, "shuffles.bw");
  REQUIRE_MESSAGE(P.Diags.diagnostics().empty(), test::render(P.Diags));
  const std::string Text = ir::print(P.Program);
  for (const char *Line : {"  let s = v + shfl_down(v, 16) + shfl_up(v, 1)\n", "  let j = shfl_xor(lane, 1)\n",
                           "  b[warp * 32 + j] = shfl(shfl_xor(tx, 3), lane / 2)\n", "  a[tid] = s * shfl(s, 0)\n"})
    CHECK_MESSAGE(Text.find(Line) != std::string::npos, Line << " not in\n" << Text);
  checkRoundTrip(P.Program, Text);
  const auto *L = P.Program.Kernels[0].Body[2].as<ir::Let>();
  REQUIRE(L);
  const auto *S = L->Init.as<ir::Shuffle>();
  REQUIRE(S);
  CHECK(S->Op == ir::ShuffleOp::Xor);
  CHECK(S->Value->is<ir::BuiltinRef>());
  CHECK(*S->Lane == ir::makeInt(1));
  ir::Shuffle Other = *S;
  Other.Op = ir::ShuffleOp::Down;
  CHECK(!(Other == *S));
  Other = *S;
  *Other.Lane = ir::makeInt(2);
  CHECK(!(Other == *S));
  // The source lanes: CUDA's rules for width 32.
  CHECK(ir::shuffleSource(ir::ShuffleOp::Idx, 7, 33) == 1);
  CHECK(ir::shuffleSource(ir::ShuffleOp::Idx, 7, -1) == 31);
  CHECK(ir::shuffleSource(ir::ShuffleOp::Xor, 5, 1) == 4);
  CHECK(ir::shuffleSource(ir::ShuffleOp::Xor, 5, 32) == 5);
  CHECK(ir::shuffleSource(ir::ShuffleOp::Up, 3, 4) == 3);
  CHECK(ir::shuffleSource(ir::ShuffleOp::Up, 9, 4) == 5);
  CHECK(ir::shuffleSource(ir::ShuffleOp::Down, 30, 4) == 30);
  CHECK(ir::shuffleSource(ir::ShuffleOp::Down, 3, 4) == 7);
}

TEST_CASE("vector views: a kernel statement, its shape from its array's, round-trip") {
  const std::string Src = "target sm_90\n"
                          "param R\n"
                          "kernel k(a: global f32[R][64], b: global f32[R][64], c: global i32[6]) grid (R) block (16) {\n"
                          "  shared s: f32[2][64] layout raw\n"
                          "  view a4 = a as f32x4\n"
                          "  view s4 = s as f32x4\n"
                          "  view b2 = b as f32x2\n"
                          "  view c2 = c as i32x2\n"
                          "  s4[1][tx] = a4[bx][tx]\n"
                          "  sync\n"
                          "  b2[bx][2 * tx] = c2[tx % 3]\n"
                          "}\n";
  test::Parsed P = test::parse(Src, "views.bw");
  REQUIRE_MESSAGE(P.Diags.diagnostics().empty(), test::render(P.Diags));
  const std::string Text = ir::print(P.Program);
  for (const char *Line : {"  view a4 = a as f32x4\n", "  view s4 = s as f32x4\n", "  view b2 = b as f32x2\n",
                           "  view c2 = c as i32x2\n", "  s4[1][tx] = a4[bx][tx]\n"})
    CHECK_MESSAGE(Text.find(Line) != std::string::npos, Line << " not in\n" << Text);
  checkRoundTrip(P.Program, Text);
  const ir::Kernel &K = P.Program.Kernels[0];
  const auto *A4 = K.Body[1].as<ir::ArrayDecl>();
  REQUIRE(A4);
  CHECK(A4->Decl.ViewOf == std::optional<std::string>("a"));
  CHECK(A4->Decl.Space == ir::MemSpace::Global);
  CHECK(A4->Decl.Elem == ir::ElemType{ir::ScalarType::F32, 4});
  CHECK(A4->Decl.Shape == std::vector<std::int64_t>{1, 16}); // R has no value: its dimension reads 1
  CHECK(ir::print(A4->Decl.Dims[0]) == "R");
  CHECK(A4->Decl.Dims[1] == ir::makeInt(16));
  const auto *S4 = K.Body[2].as<ir::ArrayDecl>();
  REQUIRE(S4);
  CHECK(S4->Decl.Space == ir::MemSpace::Shared);
  CHECK(S4->Decl.Shape == std::vector<std::int64_t>{2, 16});
  CHECK(!S4->Decl.allocatedBytes().value_or(1)); // no memory of its own
  CHECK(K.Body[4].as<ir::ArrayDecl>()->Decl.Shape == std::vector<std::int64_t>{3});
}
