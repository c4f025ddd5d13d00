//===- BinaryImageTest.cpp - functionAt against a search of the symbols ---===//
//
// functionAt() searches a page index of the function starts. Its answers
// must be those of the plain search over the sorted symbols, at every edge
// of every function: the first byte, the last, one past the end (a gap or
// the next function) and one before the start.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"
#include <algorithm>

using namespace lbr2prof;
using namespace llvm;

namespace {

int plainSearch(ArrayRef<FunctionSym> F, uint64_t Addr) {
  auto It = std::upper_bound(
      F.begin(), F.end(), Addr,
      [](uint64_t A, const FunctionSym &S) { return A < S.Start; });
  if (It == F.begin())
    return -1;
  --It;
  return Addr < It->End ? int(It - F.begin()) : -1;
}

TEST(BinaryImage, FunctionAtAgreesWithPlainSearch) {
  // This test program itself: thousands of functions (LLVM's libraries
  // are linked in statically), packed several to a page, with gaps.
  auto B = BinaryImage::open(LBR2PROF_TEST_SELF);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  ArrayRef<FunctionSym> F = (*B)->functions();
  ASSERT_GT(F.size(), 1000u);
  size_t Checked = 0, Outside = 0;
  auto Check = [&](uint64_t A) {
    int Want = plainSearch(F, A);
    ASSERT_EQ((*B)->functionAt(A), Want) << "at 0x" << utohexstr(A);
    ++Checked;
    Outside += Want < 0;
  };
  Check(0);
  Check(~0ULL);
  for (const FunctionSym &S : F) {
    Check(S.Start);
    Check(S.Start - 1);
    Check(S.End - 1);
    Check(S.End);
    Check(S.Start + (S.End - S.Start) / 2);
  }
  EXPECT_GT(Outside, 2u); // Before the first, after the last, gaps.
  EXPECT_EQ(Checked, 2 + 5 * F.size());
}

} // namespace
