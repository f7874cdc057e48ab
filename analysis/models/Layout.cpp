#include "analysis/models/Layout.h"

#include "analysis/models/Permutation.h"
#include "support/Diagnostic.h"
#include "support/Random.h"

#include <bit>
#include <fmt/format.h>

namespace bankwise {

namespace {

/// Row-major linear index of all dimensions but the last.
std::int64_t rowOf(std::span<const std::int64_t> Shape,
                   std::span<const std::int64_t> Index) {
  std::int64_t Row = 0;
  for (std::size_t D = 0; D + 1 < Shape.size(); ++D)
    Row = Row * Shape[D] + Index[D];
  return Row;
}

std::vector<std::int64_t> randomPerm(std::int64_t N, std::uint64_t Seed) {
  const Permutation P = randomPermutation(static_cast<std::uint64_t>(N), Seed);
  return {P.map().begin(), P.map().end()};
}

} // namespace

LayoutFn makeLayout(LayoutKind Kind, std::vector<std::int64_t> Shape,
                    std::int64_t Pad, std::uint64_t Seed) {
  if (Shape.empty())
    throw UserError("a layout needs at least one dimension");
  for (std::int64_t D : Shape)
    if (D < 1)
      throw UserError(fmt::format("layout dimensions must be positive, got {}", D));
  LayoutFn L;
  L.Kind = Kind == LayoutKind::Auto ? LayoutKind::Raw : Kind; // not chosen yet: raw
  L.Shape = std::move(Shape);
  L.Seed = Seed;
  const std::int64_t C = L.Shape.back();
  std::int64_t Rows = 1;
  for (std::size_t D = 0; D + 1 < L.Shape.size(); ++D)
    Rows *= L.Shape[D];
  switch (L.Kind) {
  case LayoutKind::Raw:
  case LayoutKind::Auto:
  case LayoutKind::Diagonal:
    break;
  case LayoutKind::Swizzle:
    throw UserError("build a swizzle layout with makeSwizzle");
  case LayoutKind::Pad:
    if (Pad < 0)
      throw UserError(fmt::format("pad(k) needs k >= 0, got {}", Pad));
    L.Pad = Pad;
    break;
  case LayoutKind::Xor:
    if (!std::has_single_bit(static_cast<std::uint64_t>(C)))
      throw UserError(fmt::format("layout xor needs a power-of-two last "
                                  "dimension, got {}",
                                  C));
    break;
  case LayoutKind::Ras: {
    Rng R(Seed);
    for (std::int64_t I = 0; I < Rows; ++I)
      L.Table.push_back(static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(C))));
    break;
  }
  case LayoutKind::Rap:
    L.Table = randomPerm(C, Seed);
    break;
  default: {
    const std::int64_t W = C;
    if (L.Shape.size() != 4 || L.Shape[0] != W || L.Shape[1] != W || L.Shape[2] != W)
      throw UserError(fmt::format("layout {} is defined for a w x w x w x w "
                                  "array (seed 002 Sec. VII)",
                                  ir::spelling(Kind)));
    // Independent tables from one seed: table t uses seed + t.
    if (Kind == LayoutKind::Rap1P || Kind == LayoutKind::RapR1P) {
      L.Table = randomPerm(W, Seed);
    } else if (Kind == LayoutKind::Rap3P) {
      for (std::uint64_t T = 0; T < 3; ++T) {
        const auto P = randomPerm(W, Seed + T);
        L.Table.insert(L.Table.end(), P.begin(), P.end());
      }
    } else if (Kind == LayoutKind::RapW2P) {
      for (std::int64_t T = 0; T < W * W; ++T) {
        const auto P = randomPerm(W, Seed + static_cast<std::uint64_t>(T));
        L.Table.insert(L.Table.end(), P.begin(), P.end());
      }
    } else { // Rap1PW2R
      L.Table = randomPerm(W, Seed);
      Rng R(Seed + 1);
      for (std::int64_t T = 0; T < W * W; ++T)
        L.Table.push_back(static_cast<std::int64_t>(R.below(static_cast<std::uint64_t>(W))));
    }
    break;
  }
  }
  return L;
}

std::int64_t LayoutFn::map(std::span<const std::int64_t> Index) const {
  const std::int64_t C = Shape.back();
  const std::int64_t Row = rowOf(Shape, Index);
  const std::int64_t J = Index.back();
  auto Shifted = [&](std::int64_t F) { return Row * C + (J + F % C) % C; };
  switch (Kind) {
  case LayoutKind::Raw:
  case LayoutKind::Auto: // never stored: makeLayout makes it raw
    return Row * C + J;
  case LayoutKind::Pad:
    return Row * (C + Pad) + J;
  case LayoutKind::Xor:
    return Row * C + (J ^ (Row & (C - 1)));
  case LayoutKind::Swizzle: {
    const std::int64_t O = Row * C + J;
    const std::int64_t Mask = ((std::int64_t(1) << Swz.B) - 1) << Swz.M;
    return O ^ ((O >> Swz.S) & Mask);
  }
  case LayoutKind::Diagonal:
    return Shifted(Row % C);
  case LayoutKind::Ras:
    return Shifted(Table[static_cast<std::size_t>(Row)]);
  case LayoutKind::Rap:
    return Shifted(Table[static_cast<std::size_t>(Row % C)]);
  case LayoutKind::Rap1P:
    return Shifted(Table[static_cast<std::size_t>(Index[2])]);
  case LayoutKind::RapR1P:
    return Shifted(Table[static_cast<std::size_t>(Index[0])] +
                   Table[static_cast<std::size_t>(Index[1])] +
                   Table[static_cast<std::size_t>(Index[2])]);
  case LayoutKind::Rap3P:
    return Shifted(Table[static_cast<std::size_t>(Index[0])] +
                   Table[static_cast<std::size_t>(C + Index[1])] +
                   Table[static_cast<std::size_t>(2 * C + Index[2])]);
  case LayoutKind::RapW2P:
    return Shifted(Table[static_cast<std::size_t>((Index[0] * C + Index[1]) * C + Index[2])]);
  case LayoutKind::Rap1PW2R:
    return Shifted(Table[static_cast<std::size_t>(C + Index[0] * C + Index[1])] +
                   Table[static_cast<std::size_t>(Index[2])]);
  }
  return 0;
}

LayoutFn makeSwizzle(std::vector<std::int64_t> Shape, SwizzleBits Bits) {
  LayoutFn L = makeLayout(LayoutKind::Raw, std::move(Shape));
  if (Bits.B < 0 || Bits.M < 0 || Bits.S < Bits.B || Bits.M + Bits.S + Bits.B > 40)
    throw UserError(fmt::format("Swizzle<{}, {}, {}> needs B, M >= 0 and S >= B",
                                Bits.B, Bits.M, Bits.S));
  const std::int64_t Block = std::int64_t(1) << (Bits.M + Bits.S + Bits.B);
  if (L.footprint() % Block != 0)
    throw UserError(fmt::format("Swizzle<{}, {}, {}> permutes blocks of {} elements; "
                                "the array has {}",
                                Bits.B, Bits.M, Bits.S, Block, L.footprint()));
  L.Kind = LayoutKind::Swizzle;
  L.Swz = Bits;
  return L;
}

std::int64_t LayoutFn::footprint() const {
  std::int64_t Rows = 1;
  for (std::size_t D = 0; D + 1 < Shape.size(); ++D)
    Rows *= Shape[D];
  return Rows * (Shape.back() + (Kind == LayoutKind::Pad ? Pad : 0));
}

std::string LayoutFn::str() const {
  std::string Dims;
  for (std::int64_t D : Shape)
    Dims += fmt::format("[{}]", D);
  if (Kind == LayoutKind::Pad)
    return fmt::format("pad({}) of {}", Pad, Dims);
  if (Kind == LayoutKind::Swizzle)
    return fmt::format("Swizzle<{}, {}, {}> of {}", Swz.B, Swz.M, Swz.S, Dims);
  if (Kind == LayoutKind::Raw || Kind == LayoutKind::Xor || Kind == LayoutKind::Diagonal)
    return fmt::format("{} of {}", ir::spelling(Kind), Dims);
  return fmt::format("{}(seed: {}) of {}", ir::spelling(Kind), Seed, Dims);
}

} // namespace bankwise
