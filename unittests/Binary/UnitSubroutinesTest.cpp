//===- UnitSubroutinesTest.cpp - the passed-over ranges' check -----------===//
//
// UnitSubroutines::passedOverSafely decides whether a unit's address map
// may leave out the subprograms that hold no wanted address. It finds each
// skipped range's place among the wanted addresses and the kept ranges
// from the previous one's (the ranges come in DIE order, mostly
// ascending), so it is checked against the plain definition on random
// ranges in every order: ascending, descending and shuffled.
//
//===----------------------------------------------------------------------===//
#include "UnitSubroutines.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <random>

using namespace lbr2prof;

namespace {
using Range = std::pair<uint64_t, uint64_t>;

bool plainDefinition(const std::vector<uint64_t> &Wanted,
                     const std::vector<Range> &Skipped,
                     const std::vector<Range> &Kept) {
  for (const Range &S : Skipped) {
    for (uint64_t W : Wanted)
      if (W >= S.first && W < S.second)
        return false;
    for (const Range &K : Kept)
      if (K.first < S.second && K.second > S.first)
        return false;
  }
  return true;
}

TEST(UnitSubroutines, PassedOverSafelyIsThePlainDefinition) {
  std::mt19937_64 Rng(28);
  auto below = [&](uint64_t N) { return Rng() % N; };
  auto range = [&](uint64_t Span) {
    uint64_t Low = below(Span), Len = 1 + below(40);
    return Range{Low, Low + Len};
  };
  unsigned Safe = 0, Unsafe = 0;
  for (unsigned Case = 0; Case < 3000; ++Case) {
    const uint64_t Span = 200 + below(4000);
    std::vector<uint64_t> Wanted;
    for (unsigned K = below(30); K > 0; --K)
      Wanted.push_back(below(Span));
    std::sort(Wanted.begin(), Wanted.end());
    Wanted.erase(std::unique(Wanted.begin(), Wanted.end()), Wanted.end());
    std::vector<Range> Kept, Skipped;
    for (unsigned K = below(8); K > 0; --K)
      Kept.push_back(range(Span));
    for (unsigned K = below(60); K > 0; --K)
      Skipped.push_back(range(Span));
    switch (Case % 3) {
    case 0:
      std::sort(Skipped.begin(), Skipped.end());
      break;
    case 1:
      std::sort(Skipped.rbegin(), Skipped.rend());
      break;
    default:
      break; // as drawn
    }
    bool Want = plainDefinition(Wanted, Skipped, Kept);
    std::vector<Range> KeptCopy = Kept;
    EXPECT_EQ(UnitSubroutines::passedOverSafely(Wanted, Skipped, KeptCopy),
              Want)
        << "case " << Case;
    (Want ? Safe : Unsafe) += 1;
  }
  // Both answers are common, or the comparison would prove little.
  EXPECT_GT(Safe, 300u);
  EXPECT_GT(Unsafe, 300u);
}
} // namespace
