//===- SymbolizerTest.cpp - DWARF that crashes LLVM does not crash us -----===//
//
// Inputs/dwarf-crash-* are ELF files found by binary-fuzzer on which LLVM
// 19's DWARF parser crashes (null or wild pointers in
// DWARFUnit::updateAddressDieMap, the line-table prologue parser,
// DataExtractor, warning formatting). The Symbolizer parses DWARF in child
// processes, so each one must end in an error that names the file, and this
// process must go on. Without the isolation this test dies.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Binary/Symbolizer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

using namespace lbr2prof;
using namespace llvm;

namespace {

std::vector<std::string> crashInputs() {
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(LBR2PROF_TEST_INPUTS, EC), End;
       It != End && !EC; It.increment(EC))
    if (sys::path::filename(It->path()).starts_with("dwarf-crash-"))
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

/// Every address the fuzzer looked at: function starts and instructions
/// (of the functions named Only, if given).
std::vector<uint64_t> addressesOf(const std::string &Path,
                                  ArrayRef<StringRef> Only = {}) {
  std::vector<uint64_t> A;
  auto B = BinaryImage::open(Path);
  if (!B) {
    consumeError(B.takeError());
    return A;
  }
  for (unsigned F = 0; F < (*B)->functions().size(); ++F) {
    if (!Only.empty() && !is_contained(Only, (*B)->functions()[F].Name))
      continue;
    A.push_back((*B)->functions()[F].Start);
    for (const Inst &I : (*B)->instructions(F))
      A.push_back(I.Addr);
  }
  return A;
}

TEST(Symbolizer, CorruptDwarfIsAnErrorNotACrash) {
  std::vector<std::string> Files = crashInputs();
  ASSERT_GE(Files.size(), 4u) << "inputs missing from " LBR2PROF_TEST_INPUTS;
  for (const std::string &F : Files) {
    SCOPED_TRACE(F);
    auto S = Symbolizer::create(F, {}, SymbolizerOptions());
    ASSERT_TRUE(bool(S)) << toString(S.takeError());
    std::vector<uint64_t> A = addressesOf(F);
    A.push_back(0);
    Error E = (*S)->prefetch(A, 2);
    // Each of these files makes the DWARF reader die; the error names the
    // file and says so.
    ASSERT_TRUE(bool(E));
    std::string Msg = toString(std::move(E));
    EXPECT_NE(Msg.find(F + ": debug info: "), std::string::npos) << Msg;
    EXPECT_TRUE(Msg.find("crashed on it") != std::string::npos ||
                Msg.find("gave up on it") != std::string::npos)
        << Msg;
    // Nothing was symbolized.
    for (uint64_t Addr : A)
      EXPECT_TRUE((*S)->frames(Addr).empty());
  }
}

/// Symbolizes every byte address of Path's functions (instruction starts
/// or not) isolated (the children's readers: lines in one pass per unit,
/// subroutines without LLVM's DIE tree) and in process (LLVM's
/// getInliningInfoForAddress): both must give the same frames and lines.
/// Returns how many addresses had frames and the deepest stack.
std::pair<size_t, size_t> expectAgree(const std::string &Path,
                                      ArrayRef<StringRef> Only = {}) {
  std::vector<uint64_t> A;
  {
    auto B = BinaryImage::open(Path);
    EXPECT_TRUE(bool(B));
    if (!B) {
      consumeError(B.takeError());
      return {0, 0};
    }
    for (const FunctionSym &F : (*B)->functions())
      if (!F.Plt && (Only.empty() || is_contained(Only, F.Name)))
        for (uint64_t X = F.Start; X < F.End; ++X)
          A.push_back(X);
  }
  SymbolizerOptions Iso, InProc;
  InProc.Isolate = false;
  auto S1 = Symbolizer::create(Path, {}, Iso);
  auto S2 = Symbolizer::create(Path, {}, InProc);
  EXPECT_TRUE(bool(S1) && bool(S2));
  if (!S1 || !S2)
    return {0, 0};
  EXPECT_FALSE(bool((*S1)->prefetch(A, 2)));
  EXPECT_FALSE(bool((*S2)->prefetch(A, 1)));
  EXPECT_EQ((*S1)->hasDebugInfo(), (*S2)->hasDebugInfo());
  size_t WithFrames = 0, Deepest = 0;
  for (uint64_t Addr : A) {
    ArrayRef<SourceFrame> F1 = (*S1)->frames(Addr), F2 = (*S2)->frames(Addr);
    EXPECT_EQ(F1.size(), F2.size()) << Path << " 0x" << utohexstr(Addr);
    if (F1.size() != F2.size())
      continue;
    WithFrames += !F1.empty();
    Deepest = std::max(Deepest, F1.size());
    for (size_t K = 0; K < F1.size(); ++K) {
      EXPECT_EQ(F1[K].Function, F2[K].Function);
      EXPECT_EQ(F1[K].LineOffset, F2[K].LineOffset);
      EXPECT_EQ(F1[K].Discriminator, F2[K].Discriminator);
      EXPECT_EQ(F1[K].DupFactor, F2[K].DupFactor);
      EXPECT_EQ(F1[K].File, F2[K].File);
      EXPECT_EQ(F1[K].Line, F2[K].Line);
    }
    SourceLine L1 = (*S1)->lineAt(Addr), L2 = (*S2)->lineAt(Addr);
    EXPECT_EQ(L1.File, L2.File) << Path << " 0x" << utohexstr(Addr);
    EXPECT_EQ(L1.Line, L2.Line) << Path << " 0x" << utohexstr(Addr);
  }
  return {WithFrames, Deepest};
}

TEST(Symbolizer, FastReadersAgreeWithLLVM) {
  // C++ in DWARF 5 and 4: every byte of every function. Without the
  // fast readers this compares LLVM with itself; with a wrong sequence
  // rule, a lost specification or a misplaced nested range it fails.
  for (const char *Path : {LBR2PROF_TEST_PROGXX, LBR2PROF_TEST_PROGXX4}) {
    SCOPED_TRACE(Path);
    auto [WithFrames, Deepest] = expectAgree(Path);
    EXPECT_GT(WithFrames, 100u);
    EXPECT_GE(Deepest, 3u); // twice() in mix() in Acc::step()
  }
}

TEST(Symbolizer, IsolatedAndInProcessAgree) {
  // A small -O2 -g program (prog.c), with inlined frames; its own functions
  // only (a sanitizer build links its runtime in, without line tables).
  std::string Self = LBR2PROF_TEST_PROG;
  std::vector<uint64_t> A = addressesOf(Self, {"main", "sum", "sq"});
  ASSERT_GT(A.size(), 10u);
  SymbolizerOptions Iso, InProc;
  InProc.Isolate = false;
  auto S1 = Symbolizer::create(Self, {}, Iso);
  auto S2 = Symbolizer::create(Self, {}, InProc);
  ASSERT_TRUE(bool(S1) && bool(S2));
  ASSERT_FALSE(bool((*S1)->prefetch(A, 2)));
  ASSERT_FALSE(bool((*S2)->prefetch(A, 1)));
  EXPECT_EQ((*S1)->hasDebugInfo(), (*S2)->hasDebugInfo());
  size_t WithFrames = 0;
  for (uint64_t Addr : A) {
    ArrayRef<SourceFrame> F1 = (*S1)->frames(Addr), F2 = (*S2)->frames(Addr);
    ASSERT_EQ(F1.size(), F2.size()) << Addr;
    WithFrames += !F1.empty();
    for (size_t K = 0; K < F1.size(); ++K) {
      EXPECT_EQ(F1[K].Function, F2[K].Function);
      EXPECT_EQ(F1[K].LineOffset, F2[K].LineOffset);
      EXPECT_EQ(F1[K].Discriminator, F2[K].Discriminator);
      EXPECT_EQ(F1[K].DupFactor, F2[K].DupFactor);
      EXPECT_EQ(F1[K].File, F2[K].File);
      EXPECT_EQ(F1[K].Line, F2[K].Line);
    }
    // prog.c's own code is all in prog.c, on its lines 3 to 16.
    if (!F1.empty()) {
      EXPECT_TRUE(F1.front().File.ends_with("prog.c")) << F1.front().File.str();
      EXPECT_GE(F1.front().Line, 3u);
      EXPECT_LE(F1.front().Line, 16u);
      EXPECT_EQ((*S1)->lineAt(Addr).Line, F1.front().Line);
    }
  }
  EXPECT_TRUE((*S1)->hasDebugInfo());
  EXPECT_GT(WithFrames, A.size() / 2);
  // sq() is inlined into sum(), sum() into main(): some stack has 3 frames.
  size_t Deepest = 0;
  for (uint64_t Addr : A)
    Deepest = std::max(Deepest, (*S1)->frames(Addr).size());
  EXPECT_GE(Deepest, 2u);
}

} // namespace
