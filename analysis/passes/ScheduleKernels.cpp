// The kernels and names the schedule-colored pass writes
// (detail/ScheduleKernels.h): moved out of ColoredSchedule.cpp, which keeps
// the pass's checks and its choice of lowering.
#include "analysis/passes/detail/ScheduleKernels.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <optional>

namespace bankwise::schedule_kernels {

/// Every name Prog declares (params, permutations, arrays, kernels and
/// their arrays, launches); with Within, of the kernels' arrays only
/// Within's (a name local to a new body of Within).
std::set<std::string> takenNames(const ir::Program &Prog, const ir::Kernel *Within) {
  std::set<std::string> Taken;
  for (const ir::Param &P : Prog.Params)
    Taken.insert(P.Name);
  for (const ir::Permutation &P : Prog.Perms)
    Taken.insert(P.Name);
  for (const ir::Array &A : Prog.Arrays)
    Taken.insert(A.Name);
  for (const ir::Kernel &Other : Prog.Kernels) {
    Taken.insert(Other.Name);
    if (!Within || &Other == Within)
      for (const ir::Array *A : Other.arrays())
        Taken.insert(A->Name);
  }
  for (const ir::Launch &L : Prog.Launches)
    Taken.insert(L.Name);
  return Taken;
}

HmmNames hmmNames(const ir::Program &Prog, const ir::Kernel &K) {
  std::set<std::string> Taken = takenNames(Prog);
  auto Fresh = [&](std::string Name) {
    while (Taken.count(Name))
      Name += "_";
    Taken.insert(Name);
    return Name;
  };
  HmmNames N;
  for (int P = 0; P < HmmSchedule::NumPasses; ++P) {
    N.Kernel[P] = Fresh(fmt::format("{}_pass{}", K.Name, P));
    N.SPerm[P] = Fresh(fmt::format("colored_{}_s{}", K.Name, P));
    N.DPerm[P] = Fresh(fmt::format("colored_{}_d{}", K.Name, P));
    N.S[P] = Fresh(fmt::format("s{}", P));
    N.D[P] = Fresh(fmt::format("d{}", P));
  }
  N.Buf = Fresh("buf");
  N.V = Fresh("v");
  N.K = Fresh("k");
  N.J = Fresh("j");
  return N;
}

/// Why P is not a BPC permutation, for the error: the first entry that
/// breaks the rule, or the first bit that does not move to one bit.
std::string whyNotBitPermutation(const Permutation &P) {
  const std::uint64_t N = P.size();
  if ((N & (N - 1)) != 0)
    return fmt::format("n = {} is not a power of two", N);
  for (std::uint64_t K = 1; K < N; K <<= 1) {
    const std::uint64_t D = P(K) ^ P(0);
    if ((D & (D - 1)) != 0)
      return fmt::format("P({}) ^ P(0) = {} is not one bit, so index bit {} does not move to one bit",
                         K, D, __builtin_ctzll(K));
  }
  for (std::uint64_t I = 1; I < N; ++I) {
    std::uint64_t Want = P(0);
    for (std::uint64_t K = 1; K < N; K <<= 1)
      if (I & K)
        Want ^= P(K) ^ P(0);
    if (P(I) != Want)
      return fmt::format("P({}) = {}, but the bits of {} move to {}", I, P(I), I, Want);
  }
  return "two bits move to the same bit";
}

namespace {

/// Bits of index variables moved into an expression: output bit Out takes
/// bit Bit of variable Var. Runs of consecutive output bits fed by
/// consecutive bits of one variable become one ((v >> b) & mask) << o term,
/// the terms added (their bits are disjoint).
struct BitSource {
  int Out, Var, Bit;
};
ir::Expr gatherBits(const IrBuilder &B, std::vector<BitSource> Src,
                    const std::vector<std::function<ir::Expr()>> &Vars, const std::vector<int> &Widths) {
  std::sort(Src.begin(), Src.end(), [](const BitSource &X, const BitSource &Y) { return X.Out < Y.Out; });
  std::optional<ir::Expr> Sum;
  for (std::size_t I = 0; I < Src.size();) {
    // A run goes up (bits b, b+1, ...) or, reversed, down (b, b-1, ...).
    const int Dir = I + 1 < Src.size() && Src[I + 1].Out == Src[I].Out + 1 && Src[I + 1].Var == Src[I].Var &&
                            Src[I + 1].Bit == Src[I].Bit - 1
                        ? -1
                        : 1;
    std::size_t J = I + 1;
    while (J < Src.size() && Src[J].Out == Src[J - 1].Out + 1 && Src[J].Var == Src[I].Var &&
           Src[J].Bit == Src[J - 1].Bit + Dir)
      ++J;
    const int Len = static_cast<int>(J - I), To = Src[I].Out;
    const int From = Dir > 0 ? Src[I].Bit : Src[J - 1].Bit;
    ir::Expr T = Vars[static_cast<std::size_t>(Src[I].Var)]();
    if (From > 0)
      T = B.bin(ir::BinaryOp::Shr, std::move(T), B.num(From));
    if (From + Len < Widths[static_cast<std::size_t>(Src[I].Var)])
      T = B.bin(ir::BinaryOp::BitAnd, std::move(T), B.num((std::int64_t(1) << Len) - 1));
    if (Dir < 0) {
      ir::Call C;
      C.Fn = ir::Function::Bitrev;
      C.Args.push_back(std::move(T));
      C.Args.push_back(B.num(Len));
      T = ir::Expr{std::move(C), ir::NodeLoc(B.Loc)};
    }
    if (To > 0)
      T = B.bin(ir::BinaryOp::Shl, std::move(T), B.num(To));
    Sum = Sum ? B.bin(ir::BinaryOp::Add, std::move(*Sum), std::move(T)) : std::move(T);
    I = J;
  }
  return Sum ? std::move(*Sum) : B.num(0);
}

/// Rows of the bit-permutation tile one block moves per step (its blockDim.y).
constexpr int BitTileRowsPerPass = 8;

} // namespace

/// The one-pass form of b[P(i)] = a[i] for a BPC permutation P of n = 2^m
/// (Bpc): one block of 32 x 8 threads per 1,024 elements, a 32 x 32 shared
/// tile between a coalesced read and a coalesced write. (Blocks of 32 x 4,
/// 8 loads a thread in flight before the barrier instead of 4, measured
/// the same for bit reversal at 2^26 on the H100 and 1% slower for the
/// other bit permutations: bench/results/h100/goals.md, goal 2.)
///
///   T   = bits 0..4 of the source index (the read's lanes), the bits that
///         land on destination bits 0..4 (the write's lanes), and the lowest
///         other bits until |T| = 10; Hs = T minus bits 0..4 (tile rows)
///   Rest = the other m - 10 bits, one combination per block (bx)
///   read:  tile[r][tx] = a[tx | dep(r, Hs) | dep(bx, Rest)]    r = ty + 8k
///   write: y = tx | dep(r, Hd) | dep(bx, P(Rest)), Hd = P(T) minus 0..4;
///          b[y ^ xor] = tile[row][col] where (row, col) is the tile
///          position of the source index x = P^-1(y).
///
/// Every warp reads 32 consecutive elements and writes 32 consecutive
/// elements (whole sectors for any element size); the tile's layout is left
/// to layout auto.
ir::Kernel bitPermutationKernel(const ir::Program &Prog, const ir::Kernel &K, const BitPermutation &P,
                                const ir::Array &Src, const ir::Array &Dst, const SourceLoc &Loc) {
  const IrBuilder B{Loc};
  const int M = P.Bits;
  std::set<std::string> Taken = takenNames(Prog, &K);
  auto Fresh = [&](std::string Name) {
    while (Taken.count(Name))
      Name += "_";
    Taken.insert(Name);
    return Name;
  };
  const std::string Tile = Fresh("tile"), KVar = Fresh("k"), RVar = Fresh("r");
  std::vector<bool> InT(static_cast<std::size_t>(M), false);
  for (int Bit = 0; Bit < 5; ++Bit) {
    InT[static_cast<std::size_t>(Bit)] = true;
    InT[static_cast<std::size_t>(P.from(Bit))] = true;
  }
  int Count = static_cast<int>(std::count(InT.begin(), InT.end(), true));
  for (int Bit = 5; Bit < M && Count < 10; ++Bit)
    if (!InT[static_cast<std::size_t>(Bit)])
      InT[static_cast<std::size_t>(Bit)] = true, ++Count;
  std::vector<int> Hs, Rest, Hd;
  for (int Bit = 0; Bit < M; ++Bit) {
    if (!InT[static_cast<std::size_t>(Bit)])
      Rest.push_back(Bit);
    else if (Bit >= 5)
      Hs.push_back(Bit);
    if (InT[static_cast<std::size_t>(P.from(Bit))] && Bit >= 5)
      Hd.push_back(Bit);
  }
  const std::int64_t Blocks = std::int64_t(1) << (M - 10);
  ir::Kernel Out;
  Out.Name = K.Name;
  Out.Loc = K.Loc;
  Out.Params = K.Params;
  Out.Geo.Grid = {B.num(Blocks)};
  Out.Geo.Block = {B.num(32), B.num(BitTileRowsPerPass)};
  Out.Geo.GridDim = {Blocks, 1, 1};
  Out.Geo.BlockDim = {32, BitTileRowsPerPass, 1};
  Out.Geo.Loc = K.Geo.Loc;
  // Variables: 0 = tx, 1 = r, 2 = bx.
  const std::vector<std::function<ir::Expr()>> Vars{
      [&] { return B.builtin(ir::Builtin::Tx); }, [&] { return B.var(RVar, ir::VarKind::Let); },
      [&] { return B.builtin(ir::Builtin::Bx); }};
  const std::vector<int> Widths{5, 5, M - 10};
  std::vector<BitSource> Read, Write, Row, Col;
  for (int Bit = 0; Bit < 5; ++Bit) {
    Read.push_back({Bit, 0, Bit});
    Write.push_back({Bit, 0, Bit});
  }
  for (int J = 0; J < 5; ++J) {
    Read.push_back({Hs[static_cast<std::size_t>(J)], 1, J});
    Write.push_back({Hd[static_cast<std::size_t>(J)], 1, J});
  }
  for (std::size_t J = 0; J < Rest.size(); ++J) {
    Read.push_back({Rest[J], 2, static_cast<int>(J)});
    Write.push_back({P.To[static_cast<std::size_t>(Rest[J])], 2, static_cast<int>(J)});
  }
  // Destination bit D of y comes from tx (D < 5) or from r (D in Hd).
  auto FromY = [&](int Out, int D) {
    if (D < 5)
      return BitSource{Out, 0, D};
    return BitSource{Out, 1, static_cast<int>(std::find(Hd.begin(), Hd.end(), D) - Hd.begin())};
  };
  for (int Bit = 0; Bit < 5; ++Bit)
    Col.push_back(FromY(Bit, P.To[static_cast<std::size_t>(Bit)]));
  for (int J = 0; J < 5; ++J)
    Row.push_back(FromY(J, P.To[static_cast<std::size_t>(Hs[static_cast<std::size_t>(J)])]));

  ir::Array T;
  T.Name = Tile;
  T.Space = ir::MemSpace::Shared;
  T.Elem = Src.Elem;
  T.Dims = {B.num(32), B.num(32)};
  T.Shape = {32, 32};
  T.Lay.Kind = ir::LayoutKind::Auto;
  T.Loc = ir::NodeLoc(Loc);
  Out.Body.push_back(B.stmt(ir::ArrayDecl{std::move(T)}));
  auto Tile2 = [&](ir::Expr Row, ir::Expr Col) {
    ir::ArrayRead R;
    R.Array = Tile;
    R.Indices.push_back(std::move(Row));
    R.Indices.push_back(std::move(Col));
    return R;
  };
  // for k in 0..4 { let r = ty + 8 * k; Body }
  auto Rows = [&](ir::Stmt Body) {
    ir::For F;
    F.Var = KVar;
    F.Begin = B.num(0);
    F.End = B.num(32 / BitTileRowsPerPass);
    F.Body.push_back(B.stmt(ir::Let{RVar, B.bin(ir::BinaryOp::Add, B.builtin(ir::Builtin::Ty),
                                                B.bin(ir::BinaryOp::Mul, B.num(BitTileRowsPerPass),
                                                      B.var(KVar, ir::VarKind::Loop)))}));
    F.Body.push_back(std::move(Body));
    return B.stmt(std::move(F));
  };
  Out.Body.push_back(Rows(B.assign(Tile2(B.var(RVar, ir::VarKind::Let), B.builtin(ir::Builtin::Tx)),
                                   B.read(Src.Name, gatherBits(B, Read, Vars, Widths)))));
  Out.Body.push_back(B.stmt(ir::Sync{}));
  ir::Expr Y = gatherBits(B, Write, Vars, Widths);
  if (P.Xor != 0)
    Y = B.bin(ir::BinaryOp::BitXor, std::move(Y), B.num(static_cast<std::int64_t>(P.Xor)));
  Out.Body.push_back(Rows(B.assign(B.element(Dst.Name, std::move(Y)),
                                   ir::Expr{Tile2(gatherBits(B, Row, Vars, Widths), gatherBits(B, Col, Vars, Widths)),
                                            ir::NodeLoc(Loc)})));
  return Out;
}

/// Pass Pass of seed 001's schedule as an ordinary kernel: one block per
/// row (strip) of m words, min(1024, m) threads, each moving q = ceil(m /
/// threads) words j = tx + k * threads:
///
///   (1) buf[j] = In[addr(j)]          coalesced; addr(j) = bx*C + j for a
///                                     row, j/8*C + bx*8 + j%8 for a strip
///   (2) v[k] = buf[s[bx*m + j]]       s, d: the pass's 16-bit planes
///   (3) buf[d[bx*m + j]] = v[k]       conflict-free (seed 003 per block)
///   (4) Out[addr(j)] = buf[j]         coalesced
///
/// with a sync after (1), (2) and (3). In is the source for pass 0, the
/// destination (in place) after. Params are the data arrays that are K's
/// parameters, then the pass's s and d.
ir::Kernel hmmPassKernel(const ir::Kernel &K, const HmmSchedule &Sched, int Pass, const ir::Array &Src,
                         const ir::Array &Dst, const HmmNames &Nm, const SourceLoc &ReadLoc,
                         const SourceLoc &Loc) {
  const IrBuilder B{Loc};
  const std::int64_t N = static_cast<std::int64_t>(Sched.size());
  const std::int64_t M = Sched.blockWords(Pass), Blocks = Sched.numBlocks(Pass);
  const std::int64_t Threads = std::min<std::int64_t>(1024, M), PerThread = (M + Threads - 1) / Threads;
  const std::int64_t Cols = Sched.shape().Cols, Strip = Sched.shape().StripCols;
  const bool Row = HmmSchedule::kind(Pass) == HmmPassKind::Row;
  const std::string &In = Pass == 0 ? Src.Name : Dst.Name;
  ir::Kernel P;
  P.Name = Nm.Kernel[Pass];
  P.Loc = K.Loc;
  for (const ir::Array &A : K.Params)
    if ((A.Name == Src.Name && Pass == 0) || A.Name == Dst.Name)
      P.Params.push_back(A);
  const ir::ElemType U16{ir::ScalarType::U16, 1};
  for (const auto &[Name, Perm] : {std::pair(Nm.S[Pass], Nm.SPerm[Pass]), std::pair(Nm.D[Pass], Nm.DPerm[Pass])}) {
    ir::Array T = B.array(Name, ir::MemSpace::Global, U16, N);
    T.Dims = Src.Dims; // n as the program writes it
    T.Holds = ir::PermRef{Perm, false};
    P.Params.push_back(std::move(T));
  }
  P.Geo.Grid = {B.num(Blocks)};
  P.Geo.Block = {B.num(Threads)};
  P.Geo.GridDim = {Blocks, 1, 1};
  P.Geo.BlockDim = {Threads, 1, 1};
  P.Geo.Loc = K.Geo.Loc;
  using ir::BinaryOp;
  const ir::Expr Bx = B.builtin(ir::Builtin::Bx);
  auto J = [&] { return B.var(Nm.J, ir::VarKind::Let); };
  auto Addr = [&] {
    if (Row)
      return B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, Bx, B.num(Cols)), J());
    return B.bin(BinaryOp::Add,
                 B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, B.bin(BinaryOp::Div, J(), B.num(Strip)), B.num(Cols)),
                       B.bin(BinaryOp::Mul, Bx, B.num(Strip))),
                 B.bin(BinaryOp::Mod, J(), B.num(Strip)));
  };
  auto Plane = [&](const std::string &Table) {
    return B.read(Table, B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, Bx, B.num(M)), J()));
  };
  auto VK = [&] { return B.element(Nm.V, B.var(Nm.K, ir::VarKind::Loop)); };
  // for k in 0..q { let j = tx + k * threads; [if j < m] Body }
  auto Each = [&](std::vector<ir::Stmt> Body) {
    ir::For F;
    F.Var = Nm.K;
    F.Begin = B.num(0);
    F.End = B.num(PerThread);
    F.Body.push_back(B.stmt(ir::Let{Nm.J, B.bin(BinaryOp::Add, B.builtin(ir::Builtin::Tx),
                                               B.bin(BinaryOp::Mul, B.var(Nm.K, ir::VarKind::Loop),
                                                     B.num(Threads)))}));
    if (M % Threads != 0) {
      ir::If I;
      I.Cond = B.bin(BinaryOp::Lt, J(), B.num(M));
      I.Then = std::move(Body);
      F.Body.push_back(B.stmt(std::move(I)));
    } else {
      for (ir::Stmt &S : Body)
        F.Body.push_back(std::move(S));
    }
    return B.stmt(std::move(F));
  };
  auto One = [](ir::Stmt S) {
    std::vector<ir::Stmt> V;
    V.push_back(std::move(S));
    return V;
  };
  P.Body.push_back(B.stmt(ir::ArrayDecl{B.array(Nm.Buf, ir::MemSpace::Shared, Src.Elem, M)}));
  P.Body.push_back(B.stmt(ir::ArrayDecl{B.array(Nm.V, ir::MemSpace::Local, Src.Elem, PerThread)}));
  ir::Expr Load = B.read(In, Addr());
  if (Pass == 0)
    Load.Loc = ir::NodeLoc(ReadLoc);
  P.Body.push_back(Each(One(B.assign(B.element(Nm.Buf, J()), std::move(Load)))));
  P.Body.push_back(B.stmt(ir::Sync{}));
  P.Body.push_back(Each(One(B.assign(VK(), B.read(Nm.Buf, Plane(Nm.S[Pass]))))));
  P.Body.push_back(B.stmt(ir::Sync{}));
  P.Body.push_back(Each(One(B.assign(B.element(Nm.Buf, Plane(Nm.D[Pass])), ir::Expr{VK(), ir::NodeLoc(Loc)}))));
  P.Body.push_back(B.stmt(ir::Sync{}));
  P.Body.push_back(Each(One(B.assign(B.element(Dst.Name, Addr()), B.read(Nm.Buf, J())))));
  return P;
}

} // namespace bankwise::schedule_kernels
