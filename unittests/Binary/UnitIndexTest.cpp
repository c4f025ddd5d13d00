//===- UnitIndexTest.cpp - UnitIndex against LLVM's DWARFDebugAranges ------===//
//
// UnitIndex must name, for every address, the unit LLVM 19's
// DWARFContext::getDebugAranges() names (or decline the file). Checked on
// the test programs (DWARF 5 with low/high PC, DWARF 4, range lists of
// both versions, C and C++), on LLVM's own test binary, and on the DWARF
// that crashes LLVM (which the index reads in this process, so it must
// decline or answer, never crash).
//
//===----------------------------------------------------------------------===//
#include "UnitIndex.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugAranges.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <set>

using namespace lbr2prof;
using namespace llvm;

namespace {

struct Checked {
  bool Indexed = false;
  size_t Addrs = 0, Covered = 0;
  std::set<uint64_t> Units;
};

/// Compares the index of Path with LLVM's table at every function's start,
/// every instruction and every byte after each function's end.
Checked compare(const std::string &Path) {
  Checked C;
  auto Obj = object::ObjectFile::createObjectFile(Path);
  EXPECT_TRUE(bool(Obj)) << Path;
  if (!Obj) {
    consumeError(Obj.takeError());
    return C;
  }
  std::optional<UnitIndex> I = UnitIndex::build(*Obj->getBinary());
  if (!I)
    return C;
  C.Indexed = true;
  std::unique_ptr<DWARFContext> Ctx = DWARFContext::create(*Obj->getBinary());
  const DWARFDebugAranges *Table = Ctx->getDebugAranges();
  auto B = BinaryImage::open(Path);
  EXPECT_TRUE(bool(B)) << Path;
  if (!B) {
    consumeError(B.takeError());
    return C;
  }
  std::vector<uint64_t> Addrs;
  for (unsigned F = 0; F < (*B)->functions().size(); ++F) {
    const FunctionSym &S = (*B)->functions()[F];
    Addrs.push_back(S.Start);
    Addrs.push_back(S.End);
    Addrs.push_back(S.Start - 1);
    for (const Inst &In : (*B)->instructions(F))
      Addrs.push_back(In.Addr);
  }
  for (uint64_t A : Addrs) {
    uint64_t Want = Table->findAddress(A);
    std::optional<uint64_t> Got = I->find(A);
    EXPECT_EQ(Got.value_or(-1ULL), Want) << Path << " at 0x" << utohexstr(A);
    ++C.Addrs;
    if (Got) {
      ++C.Covered;
      C.Units.insert(*Got);
    }
  }
  return C;
}

TEST(UnitIndex, SameUnitsAsLLVM) {
  for (const char *P : {LBR2PROF_TEST_PROG, LBR2PROF_TEST_PROGXX,
                        LBR2PROF_TEST_PROGXX4, LBR2PROF_TEST_RANGES5,
                        LBR2PROF_TEST_RANGES4}) {
    SCOPED_TRACE(P);
    Checked C = compare(P);
    // Each is one clang-built unit without .debug_aranges: indexed, and
    // its own code is covered.
    EXPECT_TRUE(C.Indexed);
    EXPECT_GT(C.Covered, 10u);
    EXPECT_EQ(C.Units.size(), 1u);
  }
}

TEST(UnitIndex, ManyUnits) {
  // This test binary: the C++ runtime and gtest have no DWARF here unless
  // the build adds -g; whatever it has must agree (or be declined).
  Checked C = compare(LBR2PROF_TEST_SELF);
  if (C.Indexed)
    EXPECT_GT(C.Addrs, 1000u);
}

TEST(UnitIndex, CorruptDwarfIsDeclinedOrAgrees) {
  // dwarf-crash-*: DWARF that crashes LLVM; unit-index-crash-*: found by
  // binary-fuzzer in the index itself (a unit DIE with an unknown form,
  // which DWARFFormValue::extractValue meets with llvm_unreachable).
  std::error_code EC;
  size_t N = 0;
  for (sys::fs::directory_iterator It(LBR2PROF_TEST_INPUTS, EC), End;
       It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (!Name.starts_with("dwarf-crash-") &&
        !Name.starts_with("unit-index-crash-"))
      continue;
    ++N;
    auto Obj = object::ObjectFile::createObjectFile(It->path());
    if (!Obj) {
      consumeError(Obj.takeError());
      continue;
    }
    // Reading must not crash; LLVM's table is not asked (it crashes on
    // some of these).
    std::optional<UnitIndex> I = UnitIndex::build(*Obj->getBinary());
    if (I)
      (void)I->find(0x1000);
  }
  EXPECT_GE(N, 5u);
}

} // namespace
