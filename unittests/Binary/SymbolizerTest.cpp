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

/// What expectAgree() symbolized: the addresses, the isolated
/// symbolizer, how many addresses had frames and the deepest stack.
struct Agreement {
  std::vector<uint64_t> Addrs;
  std::unique_ptr<Symbolizer> Iso;
  size_t WithFrames = 0, Deepest = 0;
};

/// Symbolizes every byte address of Path's functions (of those named
/// Only, if given; instruction starts or not) isolated (the children's
/// readers: lines in one pass per unit, subroutines without LLVM's DIE
/// tree) and in process (LLVM's getInliningInfoForAddress): both must give
/// the same frames and lines.
Agreement expectAgree(const std::string &Path, ArrayRef<StringRef> Only = {},
                      bool KeepLineZero = false, unsigned Stride = 1) {
  Agreement R;
  {
    auto B = BinaryImage::open(Path);
    EXPECT_TRUE(bool(B));
    if (!B) {
      consumeError(B.takeError());
      return R;
    }
    for (const FunctionSym &F : (*B)->functions())
      if (!F.Plt && (Only.empty() || is_contained(Only, F.Name)))
        for (uint64_t X = F.Start; X < F.End; ++X)
          if (X % Stride == 0)
            R.Addrs.push_back(X);
  }
  SymbolizerOptions Iso, InProc;
  InProc.Isolate = false;
  Iso.KeepLineZero = InProc.KeepLineZero = KeepLineZero;
  auto S1 = Symbolizer::create(Path, {}, Iso);
  auto S2 = Symbolizer::create(Path, {}, InProc);
  EXPECT_TRUE(bool(S1) && bool(S2));
  if (!S1 || !S2) {
    if (!S1)
      consumeError(S1.takeError());
    if (!S2)
      consumeError(S2.takeError());
    return R;
  }
  EXPECT_FALSE(bool((*S1)->prefetch(R.Addrs, 2)));
  EXPECT_FALSE(bool((*S2)->prefetch(R.Addrs, 1)));
  EXPECT_EQ((*S1)->hasDebugInfo(), (*S2)->hasDebugInfo());
  for (uint64_t Addr : R.Addrs) {
    ArrayRef<SourceFrame> F1 = (*S1)->frames(Addr), F2 = (*S2)->frames(Addr);
    EXPECT_EQ(F1.size(), F2.size()) << Path << " 0x" << utohexstr(Addr);
    if (F1.size() != F2.size())
      continue;
    R.WithFrames += !F1.empty();
    R.Deepest = std::max(R.Deepest, F1.size());
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
  R.Iso = std::move(*S1);
  return R;
}

TEST(Symbolizer, FastReadersAgreeWithLLVM) {
  // C++ in DWARF 5 and 4: every byte of every function. Without the
  // fast readers this compares LLVM with itself; with a wrong sequence
  // rule, a lost specification or a misplaced nested range it fails.
  for (const char *Path : {LBR2PROF_TEST_PROGXX, LBR2PROF_TEST_PROGXX4}) {
    SCOPED_TRACE(Path);
    Agreement R = expectAgree(Path);
    EXPECT_GT(R.WithFrames, 100u);
    EXPECT_GE(R.Deepest, 3u); // twice() in mix() in Acc::step()
  }
}

TEST(Symbolizer, MessagesCutByReadsAreCompleted) {
  // Read 3 bytes at a time, every message from a child is cut (the
  // shortest, 'R' and 'U', take 5), and names longer than the buffer grow
  // it: the answers must be those of whole reads. Every byte of the
  // functions with line info at their start is asked for (under ASan the
  // runtime linked into progxx has none, and would be most of the bytes).
  std::vector<std::pair<uint64_t, uint64_t>> Functions;
  {
    auto B = BinaryImage::open(LBR2PROF_TEST_PROGXX);
    ASSERT_TRUE(bool(B));
    for (const FunctionSym &F : (*B)->functions())
      if (!F.Plt)
        Functions.push_back({F.Start, F.End});
  }
  SymbolizerOptions Whole, Cut;
  Cut.PipeReadBytes = 3;
  auto S1 = Symbolizer::create(LBR2PROF_TEST_PROGXX, {}, Whole);
  auto S2 = Symbolizer::create(LBR2PROF_TEST_PROGXX, {}, Cut);
  ASSERT_TRUE(bool(S1) && bool(S2));
  std::vector<uint64_t> Starts;
  for (auto [Start, End] : Functions)
    Starts.push_back(Start);
  ASSERT_FALSE(bool((*S1)->prefetch(Starts, 2)));
  std::vector<uint64_t> Addrs;
  for (auto [Start, End] : Functions)
    if (!(*S1)->frames(Start).empty())
      for (uint64_t X = Start; X < End; ++X)
        Addrs.push_back(X);
  ASSERT_GT(Addrs.size(), 500u);
  ASSERT_FALSE(bool((*S1)->prefetch(Addrs, 2)));
  ASSERT_FALSE(bool((*S2)->prefetch(Addrs, 2)));
  size_t WithFrames = 0;
  for (uint64_t Addr : Addrs) {
    ArrayRef<SourceFrame> F1 = (*S1)->frames(Addr), F2 = (*S2)->frames(Addr);
    ASSERT_EQ(F1.size(), F2.size()) << "0x" << utohexstr(Addr);
    WithFrames += !F1.empty();
    for (size_t K = 0; K < F1.size(); ++K) {
      EXPECT_EQ(F1[K].Function, F2[K].Function);
      EXPECT_EQ(F1[K].Line, F2[K].Line);
      EXPECT_EQ(F1[K].File, F2[K].File);
      EXPECT_EQ(F1[K].Discriminator, F2[K].Discriminator);
    }
    EXPECT_EQ((*S1)->lineAt(Addr).Line, (*S2)->lineAt(Addr).Line);
  }
  EXPECT_GT(WithFrames, Addrs.size() / 2);
}

TEST(Symbolizer, ForgottenAnswersLeaveTheNames) {
  // A profile keeps the names of the frames it was built from while the
  // answers are freed (forgetAnswers): the names must stay where they
  // were, the answers go (isolated: none until prefetched again; in
  // process: looked up again), and come back the same.
  std::vector<uint64_t> Addrs = addressesOf(LBR2PROF_TEST_PROGXX);
  ASSERT_FALSE(Addrs.empty());
  for (bool Isolate : {true, false}) {
    SCOPED_TRACE(Isolate ? "isolated" : "in process");
    SymbolizerOptions O;
    O.Isolate = Isolate;
    auto S = Symbolizer::create(LBR2PROF_TEST_PROGXX, {}, O);
    ASSERT_TRUE(bool(S));
    ASSERT_FALSE(bool((*S)->prefetch(Addrs, 2)));
    struct Kept {
      uint64_t Addr;
      StringRef Name; ///< the Symbolizer's bytes
      std::string Copy;
      uint32_t Line;
    };
    std::vector<Kept> Before;
    for (uint64_t A : Addrs)
      if (ArrayRef<SourceFrame> F = (*S)->frames(A); !F.empty())
        Before.push_back({A, F.back().Function, F.back().Function.str(),
                          F.front().Line});
    // Not a fraction of Addrs: under ASan progxx carries the sanitizer
    // runtime, whose code has no line info.
    ASSERT_GT(Before.size(), 100u) << Before.size();
    (*S)->forgetAnswers();
    // Memory the answers held is reused for other bytes.
    std::vector<std::string> Fill(2000, std::string(200, 'x'));
    for (const Kept &K : Before)
      ASSERT_EQ(K.Name, K.Copy);
    if (Isolate)
      for (const Kept &K : Before)
        ASSERT_TRUE((*S)->frames(K.Addr).empty());
    else
      EXPECT_FALSE((*S)->frames(Before.front().Addr).empty());
    ASSERT_FALSE(bool((*S)->prefetch(Addrs, 2)));
    for (const Kept &K : Before) {
      ArrayRef<SourceFrame> F = (*S)->frames(K.Addr);
      ASSERT_FALSE(F.empty());
      // Interned again to the same bytes.
      EXPECT_EQ(F.back().Function.data(), K.Name.data());
      EXPECT_EQ(F.front().Line, K.Line);
    }
  }
}

TEST(Symbolizer, FastReadersAgreeWithLLVMOnSomeFunctions) {
  // Asked for some functions only, a unit's reader passes over the
  // subprograms that hold none of the addresses (and what is inlined into
  // them): the chains of the ones asked for must not change. progxx's own
  // functions, in address order (Acc::Acc, Acc::step, Acc::total, main),
  // are asked for alternately, so skipped and kept subprograms interleave
  // in the unit, and each half skips one with inlined code.
  for (const char *Path : {LBR2PROF_TEST_PROGXX, LBR2PROF_TEST_PROGXX4}) {
    SCOPED_TRACE(Path);
    std::vector<std::string> Names;
    {
      auto B = BinaryImage::open(Path);
      ASSERT_TRUE(bool(B));
      for (const FunctionSym &F : (*B)->functions())
        if (!F.Plt && (F.Name == "main" ||
                       StringRef(F.Name).contains("6shapes3Acc")))
          Names.push_back(F.Name.str());
    }
    ASSERT_EQ(Names.size(), 4u);
    size_t Deepest = 0;
    for (size_t First : {0, 1}) {
      std::vector<StringRef> Only;
      for (size_t K = First; K < Names.size(); K += 2)
        Only.push_back(Names[K]);
      Agreement R = expectAgree(Path, Only);
      EXPECT_GT(R.WithFrames, 0u);
      Deepest = std::max(Deepest, R.Deepest);
    }
    EXPECT_GE(Deepest, 3u); // twice() in mix() in Acc::step()
  }
}

TEST(Symbolizer, FastReadersAgreeWithLLVMOnSparseAddresses) {
  // Asked for every 3rd, 7th or 29th byte, the line reader keeps only the
  // rows that answer one (the last row at or before each): most rows
  // fall between two addresses asked for, and dropping one too many or
  // keeping the wrong one of rows at the same address changes a line.
  for (const char *Path : {LBR2PROF_TEST_PROGXX, LBR2PROF_TEST_PROGXX4})
    for (unsigned Stride : {3u, 7u, 29u}) {
      SCOPED_TRACE(std::string(Path) + " every " + std::to_string(Stride));
      Agreement R = expectAgree(Path, {}, false, Stride);
      EXPECT_GT(R.WithFrames, 400u / Stride);
    }
}

TEST(Symbolizer, FastReadersAgreeWithLLVMOnLineZero) {
  // The same with the frames on line 0 kept (--line-zero=keep): -O2 code
  // has some (merged and hoisted instructions), and a stack that had one
  // is now longer than none.
  for (const char *Path : {LBR2PROF_TEST_PROGXX, LBR2PROF_TEST_PROGXX4}) {
    SCOPED_TRACE(Path);
    Agreement Dropped = expectAgree(Path);
    Agreement Kept = expectAgree(Path, {}, /*KeepLineZero=*/true);
    EXPECT_GT(Kept.WithFrames, Dropped.WithFrames);
  }
}

TEST(Symbolizer, IsolatedAndInProcessAgree) {
  // A small -O2 -g program (prog.c), with inlined frames; its own functions
  // only (a sanitizer build links its runtime in, without line tables).
  Agreement R = expectAgree(LBR2PROF_TEST_PROG, {"main", "sum", "sq"});
  ASSERT_TRUE(R.Iso);
  ASSERT_GT(R.Addrs.size(), 10u);
  for (uint64_t Addr : R.Addrs) {
    ArrayRef<SourceFrame> F = R.Iso->frames(Addr);
    // prog.c's own code is all in prog.c, on its lines 3 to 16.
    if (!F.empty()) {
      EXPECT_TRUE(F.front().File.ends_with("prog.c")) << F.front().File.str();
      EXPECT_GE(F.front().Line, 3u);
      EXPECT_LE(F.front().Line, 16u);
      EXPECT_EQ(R.Iso->lineAt(Addr).Line, F.front().Line);
    }
  }
  EXPECT_TRUE(R.Iso->hasDebugInfo());
  EXPECT_GT(R.WithFrames, R.Addrs.size() / 2);
  // sq() is inlined into sum(), sum() into main(): some stack has 3 frames.
  EXPECT_GE(R.Deepest, 2u);
}

} // namespace
