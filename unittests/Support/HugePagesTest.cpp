//===- HugePagesTest.cpp - allocateBlock, BumpScope, the arena's blocks ---===//
#include "lbr2prof/Support/HugePages.h"
#include "lbr2prof/Support/Arena.h"
#include "Sanitizers.h"
#include "gtest/gtest.h"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

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

// In a scope, small blocks come from the region, apart, and freeing one
// leaves it there (the next block is a new one); large or over-aligned
// blocks, and blocks once the scope ends, do not.
TEST(HugePages, BumpScopeCarvesSmallBlocks) {
  std::vector<unsigned char *> Blocks;
  {
    BumpScope Scope;
    for (size_t Bytes : {1u, 8u, 16u, 17u, 24u, 100u, 4096u, 70000u,
                         300000u}) {
      auto *P = static_cast<unsigned char *>(allocateBlock(Bytes, 16));
      ASSERT_NE(P, nullptr);
      EXPECT_TRUE(BumpScope::holds(P)) << Bytes;
      EXPECT_EQ(addr(P) % 16, 0u);
      std::memset(P, int(Blocks.size() + 1), Bytes);
      Blocks.push_back(P);
    }
    // Each block rounded up to 16 bytes, no header: 1 and 8 take 16.
    EXPECT_EQ(addr(Blocks[1]) - addr(Blocks[0]), 16u);
    EXPECT_EQ(addr(Blocks[2]) - addr(Blocks[1]), 16u);
    EXPECT_EQ(addr(Blocks[4]) - addr(Blocks[3]), 32u);
    // Freed, a block stays: the next is elsewhere, the old bytes intact.
    freeBlock(Blocks[4]);
    auto *Again = static_cast<unsigned char *>(allocateBlock(24, 16));
    EXPECT_NE(Again, Blocks[4]);
    EXPECT_EQ(Blocks[4][23], 5);
    // Not carved: 2 MiB and more, or more than 16-byte alignment.
    void *Large = allocateBlock(HugeBlockMin, 16);
    void *Aligned = allocateBlock(64, 64);
    EXPECT_FALSE(BumpScope::holds(Large));
    EXPECT_FALSE(BumpScope::holds(Aligned));
    EXPECT_EQ(addr(Aligned) % 64, 0u);
    freeBlock(Large);
    freeBlock(Aligned);
  }
  for (size_t K = 0; K < Blocks.size(); ++K)
    EXPECT_EQ(Blocks[K][0], K + 1) << K;
  void *Outside = allocateBlock(24, 16);
  EXPECT_FALSE(BumpScope::holds(Outside));
  EXPECT_GE(malloc_usable_size(Outside), 24u); // malloc's
  freeBlock(Outside);
}

// Scopes nest and belong to their thread: another thread's blocks come
// from malloc meanwhile.
TEST(HugePages, BumpScopeIsPerThreadAndNests) {
  BumpScope Outer;
  void *Nested = nullptr;
  {
    BumpScope Inner;
    Nested = allocateBlock(40, 16);
  }
  void *Mine = allocateBlock(40, 16);
  EXPECT_TRUE(BumpScope::holds(Nested));
  EXPECT_TRUE(BumpScope::holds(Mine));
  void *Theirs = nullptr;
  std::thread([&] { Theirs = allocateBlock(40, 16); }).join();
  EXPECT_FALSE(BumpScope::holds(Theirs));
  EXPECT_GE(malloc_usable_size(Theirs), 40u);
  freeBlock(Theirs);
  freeBlock(Mine);
}

// Past its first BumpSmallBytes, the region is marked for huge pages.
TEST(HugePages, BumpRegionIsAdvisedPastItsStart) {
  BumpScope Scope;
  void *Last = nullptr;
  while (BumpScope::bytesCarved() < BumpSmallBytes + HugePageBytes)
    Last = allocateBlock(64 << 10, 16);
  ASSERT_NE(Last, nullptr);
  std::memset(Last, 1, 64 << 10);
#if defined(__linux__)
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    std::string Flags = vmFlagsAt(Last);
    EXPECT_NE(Flags.find(" hg"), std::string::npos) << Flags;
  }
#endif
}

// glibc's malloc only (a sanitizer's has its own heap).
#if defined(__GLIBC__) && !LBR2PROF_UNDER_ASAN
/// This process's resident bytes.
size_t residentBytes() {
  std::ifstream In("/proc/self/statm");
  size_t Size = 0, Resident = 0;
  In >> Size >> Resident;
  return Resident * size_t(sysconf(_SC_PAGESIZE));
}

// Free blocks between live ones stay resident until releaseFreeMemory().
TEST(HugePages, ReleaseFreeMemoryGivesBackFreePages) {
  std::vector<void *> Blocks;
  for (int K = 0; K < 1024; ++K) {
    Blocks.push_back(std::malloc(64 << 10));
    std::memset(Blocks.back(), 1, 64 << 10);
  }
  // Every 16th stays: the free runs between them cannot join the heap's
  // top, which free() trims by itself.
  for (size_t K = 0; K < Blocks.size(); ++K)
    if (K % 16 != 15)
      std::free(Blocks[K]);
  size_t Before = residentBytes();
  releaseFreeMemory();
  EXPECT_GE(Before - std::min(Before, residentBytes()), size_t(32) << 20);
  for (size_t K = 15; K < Blocks.size(); K += 16)
    std::free(Blocks[K]);
}
#endif

// An arena's blocks double up to a huge page: 16 MiB in 1 KiB pieces
// lies in a handful of contiguous runs, not in 256 blocks of 64 KiB.
TEST(HugePages, ArenaBlocksGrowToHugePages) {
  Arena A;
  uintptr_t Prev = 0;
  unsigned Jumps = 0;
  for (int K = 0; K < 16 * 1024; ++K) {
    uintptr_t P = addr(A.allocate(1024, 16));
    Jumps += K && P != Prev + 1024;
    Prev = P;
  }
  EXPECT_LE(Jumps, 16u);
  EXPECT_GE(Jumps, 5u); // it starts small: 64 KiB, 128 KiB, ...
}

} // namespace
