//===- ProcessMapsTest.cpp - per-process mappings -------------------------===//
//
// Checks lookup, overlap replacement, fork inheritance, exec reset and the
// kernel's shared mappings.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Aggregate/ProcessMaps.h"
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
  return E;
}

TEST(ProcessMaps, LookupAndFileOffset) {
  ProcessMaps M;
  M.addMmap(mm(1, 0x555000, 0x2000, 0x1000, "/bin/app"));
  M.addMmap(mm(1, 0x7f0000, 0x1000, 0, "/lib/libc.so"));
  M.addMmap(mm(1, 0x900000, 0x1000, 0, "/data", /*Prot=*/3)); // not exec
  const Mapping *A = M.find(1, 0x555010);
  ASSERT_TRUE(A);
  EXPECT_EQ(M.dsos()[A->Dso].Path, "/bin/app");
  EXPECT_EQ(A->fileOffset(0x555010), 0x1010u);
  EXPECT_EQ(M.find(1, 0x557000), nullptr); // End is exclusive
  EXPECT_EQ(M.find(1, 0x900000), nullptr);
  EXPECT_EQ(M.find(2, 0x555010), nullptr);
}

TEST(ProcessMaps, NewerMappingReplacesOverlap) {
  ProcessMaps M;
  M.addMmap(mm(1, 0x1000, 0x3000, 0, "/old"));
  M.addMmap(mm(1, 0x2000, 0x1000, 0, "/new"));
  EXPECT_EQ(M.dsos()[M.find(1, 0x1800)->Dso].Path, "/old");
  EXPECT_EQ(M.dsos()[M.find(1, 0x2800)->Dso].Path, "/new");
  const Mapping *R = M.find(1, 0x3800);
  ASSERT_TRUE(R);
  EXPECT_EQ(M.dsos()[R->Dso].Path, "/old");
  EXPECT_EQ(R->fileOffset(0x3800), 0x2800u); // right part keeps its offset
}

TEST(ProcessMaps, ForkCopiesExecClears) {
  ProcessMaps M;
  M.addMmap(mm(1, 0x1000, 0x1000, 0, "/bin/sh"));
  M.fork(2, 1);
  ASSERT_TRUE(M.find(2, 0x1000));
  M.exec(2);
  EXPECT_EQ(M.find(2, 0x1000), nullptr);
  EXPECT_TRUE(M.find(1, 0x1000)); // the parent keeps its maps
}

TEST(ProcessMaps, KernelMappingsServeEveryProcess) {
  ProcessMaps M;
  MmapEvent K = mm(uint32_t(-1), 0xffffffff81000000ULL, 0x1000000, 0,
                   "[kernel.kallsyms]_text");
  K.IsMmap2 = false;
  M.addMmap(K);
  const Mapping *A = M.find(77, 0xffffffff81000010ULL);
  ASSERT_TRUE(A);
  EXPECT_EQ(M.dsos()[A->Dso].Path, "[kernel.kallsyms]_text");
}

} // namespace
