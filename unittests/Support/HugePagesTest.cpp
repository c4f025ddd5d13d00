//===- HugePagesTest.cpp - allocateBlock's sizes, alignment, advice -------===//
#include "lbr2prof/Support/HugePages.h"
#include "gtest/gtest.h"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <sstream>
#include <string>

using namespace lbr2prof;

namespace {

uintptr_t addr(const void *P) { return reinterpret_cast<uintptr_t>(P); }

/// The VmFlags of the mapping that holds P, from /proc/self/smaps ("" if
/// none holds it).
std::string vmFlagsAt(const void *P) {
  std::ifstream In("/proc/self/smaps");
  std::string Line;
  bool Inside = false;
  while (std::getline(In, Line)) {
    unsigned long long Lo, Hi;
    char Dash;
    std::istringstream Head(Line);
    if (Line.find('-') != std::string::npos &&
        (Head >> std::hex >> Lo >> Dash >> Hi) && Dash == '-') {
      Inside = addr(P) >= Lo && addr(P) < Hi;
      continue;
    }
    if (Inside && Line.rfind("VmFlags:", 0) == 0)
      return Line;
  }
  return "";
}

// A block from 2 MiB up is whole huge pages, aligned to one, all of it
// writable, and marked for huge pages (smaps' "hg", whether or not the
// system then gives it huge pages).
TEST(HugePages, LargeBlockIsWholeAlignedAdvisedHugePages) {
  size_t Bytes = 3 * HugePageBytes / 2 + 1;
  void *P = allocateBlock(Bytes, 16);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(addr(P) % HugePageBytes, 0u);
  EXPECT_GE(malloc_usable_size(P), 2 * HugePageBytes);
  std::memset(P, 0x5a, 2 * HugePageBytes);
#if defined(__linux__)
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    std::string Flags = vmFlagsAt(P);
    EXPECT_NE(Flags.find(" hg"), std::string::npos) << Flags;
  }
#endif
  std::free(P);

  // Exactly at the threshold: one page, no rounding up.
  P = allocateBlock(HugeBlockMin, 8);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(addr(P) % HugePageBytes, 0u);
  std::free(P);
}

// Below the threshold a block is malloc's, of its size (not a huge page),
// at the alignment asked for.
TEST(HugePages, SmallBlockIsOrdinary) {
  for (size_t Align : {1u, 8u, 16u, 64u, 4096u}) {
    SCOPED_TRACE(Align);
    size_t Bytes = HugeBlockMin - 1;
    void *P = allocateBlock(Bytes, Align);
    ASSERT_NE(P, nullptr);
    EXPECT_EQ(addr(P) % Align, 0u);
    EXPECT_GE(malloc_usable_size(P), Bytes);
    EXPECT_LT(malloc_usable_size(P), 2 * HugePageBytes);
    std::memset(P, 1, Bytes);
    std::free(P);
  }
  void *Empty = allocateBlock(0, 16);
  EXPECT_NE(Empty, nullptr);
  std::free(Empty);
}

// An alignment above a huge page's is kept; a size that cannot be rounded
// up to whole pages gives null rather than a short block.
TEST(HugePages, LargeAlignmentAndImpossibleSizes) {
  void *P = allocateBlock(HugeBlockMin + 1, 2 * HugePageBytes);
  ASSERT_NE(P, nullptr);
  EXPECT_EQ(addr(P) % (2 * HugePageBytes), 0u);
  std::free(P);
  EXPECT_EQ(allocateBlock(SIZE_MAX - 100, 16), nullptr);
}

} // namespace
