//===- ProcessMapsTest.cpp - per-process mappings -------------------------===//
//
// Checks lookup, overlap replacement, fork inheritance, exec reset and the
// kernel's shared mappings.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Aggregate/ProcessMaps.h"
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "gtest/gtest.h"

using namespace lbr2prof;

namespace {

MmapEvent mm(uint32_t Pid, uint64_t Addr, uint64_t Len, uint64_t PgOff,
             llvm::StringRef Name, uint32_t Prot = 5) {
  MmapEvent E;
  E.IsMmap2 = true;
  E.Pid = E.Tid = Pid;
  E.Addr = Addr;
  E.Len = Len;
  E.PgOff = PgOff;
  E.Prot = Prot;
  E.Filename = Name;
  // perf writes the kernel's maps for pid -1 with a kernel cpumode.
  if (Pid == uint32_t(-1))
    E.Misc = perfabi::PERF_RECORD_MISC_KERNEL;
  return E;
}

TEST(ProcessMaps, LookupAndFileOffset) {
  ProcessMaps M;
  M.addMmap(mm(1, 0x555000, 0x2000, 0x1000, "/bin/app"));
  M.addMmap(mm(1, 0x7f0000, 0x1000, 0, "/lib/libc.so"));
  M.addMmap(mm(1, 0x900000, 0x1000, 0, "/data", /*Prot=*/3)); // not exec
  const Mapping *A = M.find(1, 0x555010, AddrMode::Either);
  ASSERT_TRUE(A);
  EXPECT_EQ(M.dsos()[A->Dso].Path, "/bin/app");
  EXPECT_EQ(A->fileOffset(0x555010), 0x1010u);
  EXPECT_EQ(M.find(1, 0x557000, AddrMode::Either), nullptr); // End is exclusive
  EXPECT_EQ(M.find(1, 0x900000, AddrMode::Either), nullptr);
  EXPECT_EQ(M.find(2, 0x555010, AddrMode::Either), nullptr);
}

TEST(ProcessMaps, FilesPastALocsRangeShareOneIndex) {
  ProcessMaps M;
  const unsigned N = ProcessMaps::MaxDsos + 100;
  std::string Name;
  for (unsigned I = 0; I < N; ++I) {
    Name = "/lib/f" + std::to_string(I);
    M.addMmap(mm(I + 1, 0x100000, 0x1000, 0, Name)); // one file a process

  }
  ASSERT_EQ(M.dsos().size(), size_t(ProcessMaps::MaxDsos));
  const Mapping *First = M.find(1, 0x100000, AddrMode::User);
  const Mapping *Last = M.find(N, 0x100000, AddrMode::User);
  ASSERT_TRUE(First && Last);
  EXPECT_EQ(M.dsos()[First->Dso].Path, "/lib/f0");
  EXPECT_EQ(M.dsos()[Last->Dso].Path, ProcessMaps::OverflowDsoPath);
  // Every index round-trips through a Loc, and no Loc has the top bit set.
  Loc L = makeLoc(Last->Dso, 0x123);
  EXPECT_EQ(locDso(L), int(Last->Dso));
  EXPECT_EQ(locOffset(L), 0x123u);
  EXPECT_EQ(L >> 63, 0u);
  // A file seen before the limit keeps its own index.
  M.addMmap(mm(N + 1, 0x100000, 0x1000, 0, "/lib/f7"));
  EXPECT_EQ(M.dsos()[M.find(N + 1, 0x100000, AddrMode::User)->Dso].Path,
            "/lib/f7");
}

TEST(ProcessMaps, NewerMappingReplacesOverlap) {
  ProcessMaps M;
  M.addMmap(mm(1, 0x1000, 0x3000, 0, "/old"));
  M.addMmap(mm(1, 0x2000, 0x1000, 0, "/new"));
  EXPECT_EQ(M.dsos()[M.find(1, 0x1800, AddrMode::Either)->Dso].Path, "/old");
  EXPECT_EQ(M.dsos()[M.find(1, 0x2800, AddrMode::Either)->Dso].Path, "/new");
  const Mapping *R = M.find(1, 0x3800, AddrMode::Either);
  ASSERT_TRUE(R);
  EXPECT_EQ(M.dsos()[R->Dso].Path, "/old");
  EXPECT_EQ(R->fileOffset(0x3800), 0x2800u); // right part keeps its offset
}

TEST(ProcessMaps, ForkCopiesExecClears) {
  ProcessMaps M;
  M.addMmap(mm(1, 0x1000, 0x1000, 0, "/bin/sh"));
  M.fork(2, 1);
  ASSERT_TRUE(M.find(2, 0x1000, AddrMode::Either));
  M.exec(2);
  EXPECT_EQ(M.find(2, 0x1000, AddrMode::Either), nullptr);
  EXPECT_TRUE(M.find(1, 0x1000, AddrMode::Either)); // the parent keeps its maps
}

TEST(ProcessMaps, KernelMappingsServeEveryProcess) {
  ProcessMaps M;
  MmapEvent K = mm(uint32_t(-1), 0xffffffff81000000ULL, 0x1000000, 0,
                   "[kernel.kallsyms]_text");
  K.IsMmap2 = false;
  M.addMmap(K);
  const Mapping *A = M.find(77, 0xffffffff81000010ULL, AddrMode::Either);
  ASSERT_TRUE(A);
  EXPECT_EQ(M.dsos()[A->Dso].Path, "[kernel.kallsyms]_text");
}

// perf 3.4 wrote the kernel's MMAP as [0, +0xffffffff9fffffff) with the
// runtime address of _text in pgoff: it covers user space too. Lookups by
// cpumode keep user addresses out of it, and its text starts at pgoff.
TEST(ProcessMaps, OldKernelMapCoversUserSpaceButServesKernelModeOnly) {
  ProcessMaps M;
  MmapEvent K = mm(uint32_t(-1), 0, 0xffffffff9fffffffULL,
                   0xffffffff81000190ULL, "[kernel.kallsyms]_stext");
  K.IsMmap2 = false;
  M.addMmap(K);
  M.addMmap(mm(77, 0x400000, 0x1000, 0, "/x/app"));
  // A user-mode IP outside the process's maps is unmapped, not kernel.
  EXPECT_EQ(M.find(77, 0x7f0000001000ULL, AddrMode::User), nullptr);
  EXPECT_EQ(M.find(78, 0x400010, AddrMode::User), nullptr);
  EXPECT_EQ(M.find(77, 0x7f0000001000ULL, AddrMode::Either), nullptr);
  // Kernel mode finds the kernel at its text, offsets counted from the
  // symbol the map is named after (_stext here).
  const Mapping *A = M.find(77, 0xffffffff81234567ULL, AddrMode::Kernel);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Start, 0xffffffff81000190ULL);
  EXPECT_EQ(A->fileOffset(0xffffffff81234567ULL), 0x2343d7ULL);
  EXPECT_EQ(M.find(77, 0x400010, AddrMode::Kernel), nullptr);
  // A mapped user address stays the process's in every mode but Kernel.
  const Mapping *U = M.find(77, 0x400010, AddrMode::Either);
  ASSERT_TRUE(U);
  EXPECT_EQ(M.dsos()[U->Dso].Path, "/x/app");
  EXPECT_EQ(M.find(77, 0x400010, AddrMode::None), nullptr);
}

// armv7 perf 3.4: the kernel's length runs to the top of the 64-bit space.
TEST(ProcessMaps, KernelLengthPastTheTopEndsAtTheTop) {
  ProcessMaps M;
  MmapEvent K = mm(uint32_t(-1), 0x80008200ULL, 0xffffffff80000000ULL,
                   0x80008200ULL, "[kernel.kallsyms]_stext");
  M.addMmap(K);
  const Mapping *A = M.find(5, 0xc0001234ULL, AddrMode::Kernel);
  ASSERT_TRUE(A);
  EXPECT_EQ(A->End, ~0ULL);
}

TEST(ProcessMaps, CpumodeOfMisc) {
  EXPECT_EQ(addrModeOf(perfabi::PERF_RECORD_MISC_USER), AddrMode::User);
  EXPECT_EQ(addrModeOf(perfabi::PERF_RECORD_MISC_KERNEL), AddrMode::Kernel);
  EXPECT_EQ(addrModeOf(0), AddrMode::Either);
  EXPECT_EQ(addrModeOf(perfabi::PERF_RECORD_MISC_GUEST_USER), AddrMode::None);
  EXPECT_EQ(addrModeOf(perfabi::PERF_RECORD_MISC_HYPERVISOR |
                       perfabi::PERF_RECORD_MISC_COMM_EXEC),
            AddrMode::None);
}

// The counter caches the last mapping it found: a kernel mapping found for
// a kernel-mode sample must not answer the next user-mode lookup (it did
// when both shared one cache, and the answer then depended on how samples
// were split among threads).
TEST(ProcessMaps, CountedSamplesFollowTheirCpumode) {
  ProcessMaps M;
  MmapEvent K = mm(uint32_t(-1), 0, 0xffffffff9fffffffULL,
                   0xffffffff81000190ULL, "[kernel.kallsyms]_stext");
  M.addMmap(K);
  M.addMmap(mm(77, 0x400000, 0x1000, 0, "/x/app"));
  AggregateOptions O;
  SampleCounter C(O);
  C.count(M, 77, 0xffffffff81000200ULL, AddrMode::Kernel, 1, {});
  C.count(M, 77, 0x400010, AddrMode::User, 1, {});
  C.count(M, 77, 0x7f0000000000ULL, AddrMode::User, 1, {});
  C.count(M, 77, 0x400020, AddrMode::User, 1, {});
  C.count(M, 77, 0x400020, AddrMode::None, 1, {});
  unsigned App = M.find(77, 0x400010, AddrMode::User)->Dso;
  unsigned Kernel = M.find(77, 0xffffffff81000200ULL, AddrMode::Kernel)->Dso;
  EXPECT_EQ(C.Profile.SamplesPerDso.lookup(int(App)), 2u);
  EXPECT_EQ(C.Profile.SamplesPerDso.lookup(int(Kernel)), 1u);
  EXPECT_EQ(C.Profile.SamplesPerDso.lookup(-1), 2u);
}

// The counter's mapping cache (the last two user mappings, a Loc made by
// one addition) answers as the maps do: alternating among three files and
// two processes, and for a file offset past a Loc's 48 bits, where makeLoc
// masks it and the cache must not add.
TEST(ProcessMaps, CachedLookupsAgreeWithTheMaps) {
  ProcessMaps M;
  M.addMmap(mm(5, 0x400000, 0x10000, 0x2000, "/x/app"));
  M.addMmap(mm(5, 0x7f0000000000ULL, 0x10000, 0, "/x/libc.so"));
  M.addMmap(mm(5, 0x7f1000000000ULL, 0x10000, 0x1000, "/x/libm.so"));
  M.addMmap(mm(6, 0x400000, 0x10000, 0, "/x/other"));
  // File offsets from 2^48 - 0x800 to 2^48 + 0x7ff.
  M.addMmap(mm(6, 0x7f2000000000ULL, 0x1000, (1ULL << 48) - 0x800,
               "/x/huge"));
  AggregateOptions O;
  SampleCounter C(O);
  auto expected = [&](uint32_t Pid, uint64_t A) {
    const Mapping *Map = M.find(Pid, A, AddrMode::Either);
    return Map ? makeLoc(Map->Dso, Map->fileOffset(A)) : ExternalLoc;
  };
  const uint64_t Addrs[][2] = {
      {5, 0x400010},         {5, 0x40fff0},         {5, 0x7f0000000100ULL},
      {5, 0x400020},         {5, 0x7f1000000200ULL}, {5, 0x7f0000000300ULL},
      {5, 0x410000},         {6, 0x400010},         {5, 0x400010},
      {6, 0x7f2000000000ULL}, {6, 0x7f20000007ffULL}, {6, 0x7f2000000800ULL},
      {6, 0x7f2000000fffULL}, {6, 0x7f2000000800ULL}, {6, 0x400030}};
  for (int Round = 0; Round < 2; ++Round)
    for (const auto &[Pid, A] : Addrs) {
      SCOPED_TRACE(::testing::Message() << Pid << " 0x" << std::hex << A);
      EXPECT_EQ(C.locate(M, uint32_t(Pid), A), expected(uint32_t(Pid), A));
    }
  // Past 2^48 the offset wraps within the Loc, as makeLoc masks it.
  EXPECT_EQ(locOffset(C.locate(M, 6, 0x7f2000000800ULL)), 0u);
}

} // namespace
