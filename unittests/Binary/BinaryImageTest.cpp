//===- BinaryImageTest.cpp - the function table and functionAt ------------===//
//
// functionAt() searches a page index of the function starts. Its answers
// must be those of the plain search over the sorted symbols, at every edge
// of every function: the first byte, the last, one past the end (a gap or
// the next function) and one before the start.
//
// The function table itself is checked against the symbol table as LLVM's
// ELF reader lists it: one function per start, named by its first global
// symbol (else its first), the other names its aliases.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/BinaryImage.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "Sanitizers.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <map>

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

/// What the function table should be, from LLVM's reading of the symbol
/// table: per start address, the names of the STT_FUNC symbols defined in
/// code there, globals first, each group in table order, without repeats.
/// Also counts the ascending runs of starts in that order (globals, then
/// locals), which decide how BinaryImage sorts them.
std::map<uint64_t, std::vector<std::string>> expectedNames(const char *Path,
                                                           size_t &Runs) {
  auto Bin = object::ObjectFile::createObjectFile(Path);
  EXPECT_TRUE(bool(Bin)) << toString(Bin.takeError());
  auto *O = dyn_cast<object::ELF64LEObjectFile>(Bin->getBinary());
  EXPECT_NE(O, nullptr);
  std::vector<std::pair<uint64_t, uint64_t>> Code;
  for (const object::ELFSectionRef S : O->sections())
    if (S.getFlags() & ELF::SHF_EXECINSTR)
      Code.push_back({S.getAddress(), S.getAddress() + S.getSize()});
  std::vector<std::pair<uint64_t, std::string>> Globals, Locals;
  for (const object::ELFSymbolRef S : O->symbols()) {
    Expected<StringRef> Name = S.getName();
    Expected<uint64_t> Addr = S.getAddress();
    if (!Name || !Addr) {
      consumeError(Name.takeError());
      consumeError(Addr.takeError());
      continue;
    }
    bool InCode = llvm::any_of(
        Code, [&](auto &C) { return *Addr >= C.first && *Addr < C.second; });
    if (S.getELFType() != ELF::STT_FUNC || Name->empty() || !InCode ||
        (cantFail(S.getFlags()) & object::SymbolRef::SF_Undefined))
      continue;
    (S.getBinding() == ELF::STB_LOCAL ? Locals : Globals)
        .push_back({*Addr, Name->str()});
  }
  std::map<uint64_t, std::vector<std::string>> Want;
  Runs = 0;
  uint64_t Prev = 0;
  for (auto *Group : {&Globals, &Locals})
    for (auto &[Addr, Name] : *Group) {
      Runs += Runs == 0 || Addr < Prev;
      Prev = Addr;
      std::vector<std::string> &Names = Want[Addr];
      if (llvm::find(Names, Name) == Names.end())
        Names.push_back(Name);
    }
  return Want;
}

TEST(BinaryImage, FunctionTableFollowsTheSymbolTable) {
  // This test program (linked by GNU ld: thousands of ascending runs, so
  // the radix sort) and two small programs (a few runs: merged), each
  // against LLVM's reading.
  size_t Sorted = 0, Merged = 0;
  for (const char *Path :
       {LBR2PROF_TEST_SELF, LBR2PROF_TEST_PROG, LBR2PROF_TEST_PROGXX}) {
    SCOPED_TRACE(Path);
    size_t Runs = 0;
    std::map<uint64_t, std::vector<std::string>> Want =
        expectedNames(Path, Runs);
    auto B = BinaryImage::open(Path);
    ASSERT_TRUE(bool(B)) << toString(B.takeError());
    std::map<uint64_t, std::vector<std::string>> Got;
    size_t Aliases = 0, Twice = 0;
    for (const FunctionSym &F : (*B)->functions()) {
      if (F.Plt)
        continue;
      std::vector<std::string> &Names = Got[F.Start];
      Twice += !Names.empty();
      Names.push_back(F.Name.str());
      for (StringRef A : F.Aliases)
        Names.push_back(A.str());
      Aliases += F.Aliases.size();
    }
    EXPECT_EQ(Twice, 0u) << "functions that start where another does";
    EXPECT_EQ(Got, Want);
    (Runs > 16 ? Sorted : Merged) += 1;
    if (Runs > 16)
      EXPECT_GT(Aliases, 0u); // C++ constructors and destructors.
  }
  // This program always takes the radix sort; the small programs take the
  // merge unless a sanitizer's runtime, linked into them, brings its own
  // thousands of functions.
  EXPECT_GE(Sorted, 1u);
#if !LBR2PROF_UNDER_ASAN
  EXPECT_EQ(Merged, 2u);
#endif
}

} // namespace
