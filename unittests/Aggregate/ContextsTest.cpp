//===- ContextsTest.cpp - unwinding branch stacks against call stacks -----===//
//
// Synthetic hybrid samples (call stack + branch stack) through the
// SampleCounter with a fake oracle, checked against contexts worked out by
// hand. The binary /bin/app is mapped at 0x400000 from file offset 0, so
// its file offsets are its addresses minus 0x400000:
//   main: 0x0a0..0x100 loop, 0x100 call A (returns to 0x105),
//         0x110 call A (returns to 0x115), 0x120 call memcpy@libc
//         (returns to 0x125)
//   A:    0x300..0x320, 0x320 call B (returns to 0x325), 0x330 jmp 0x340
//   B:    0x400..0x410 ret
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/PerfData/PerfABI.h"
#include "llvm/Support/Format.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

using namespace lbr2prof;

namespace {

class FakeOracle : public TransferOracle {
public:
  bool isBinary(const DsoInfo &D) const override { return D.Path == "/bin/app"; }
  Kind kindAt(uint64_t Off) const override {
    if (Off == 0x100 || Off == 0x110 || Off == 0x120 || Off == 0x320)
      return Call;
    return Off == 0x410 ? Return : Other;
  }
  uint64_t returnOffsetOf(uint64_t Off) const override {
    return kindAt(Off) == Call ? Off + 5 : ~0ULL;
  }
  bool isReturnSite(uint64_t Off) const override {
    return Off == 0x105 || Off == 0x115 || Off == 0x125 || Off == 0x325;
  }
};

MmapEvent mm(uint64_t Addr, uint64_t Len, llvm::StringRef Name) {
  MmapEvent E;
  E.IsMmap2 = true;
  E.Pid = E.Tid = 1;
  E.Addr = Addr;
  E.Len = Len;
  E.PgOff = 0;
  E.Prot = 5;
  E.Filename = Name;
  return E;
}

struct Fixture {
  FakeOracle O;
  AggregateOptions Opts;
  ProcessMaps Maps;
  std::vector<BranchEntry> Br;
  std::vector<ulittle64> Chain;
  Fixture() {
    Opts.WindowWeighting = false;
    Opts.Contexts = &O;
    Maps.addMmap(mm(0x400000, 0x10000, "/bin/app"));
    Maps.addMmap(mm(0x7f0000, 0x1000, "/lib/libc.so"));
  }
  /// Branch stack, newest first.
  void lbr(std::initializer_list<std::pair<uint64_t, uint64_t>> Entries) {
    Br.clear();
    for (auto [F, T] : Entries) {
      BranchEntry E;
      E.From = F;
      E.To = T;
      E.Flags = 0;
      Br.push_back(E);
    }
  }
  /// Call stack: the IP, then return addresses innermost first.
  void stack(std::initializer_list<uint64_t> Frames) {
    Chain.clear();
    Chain.push_back(ulittle64(perfabi::PERF_CONTEXT_USER));
    for (uint64_t A : Frames)
      Chain.push_back(ulittle64(A));
  }
  /// Counts one sample; the contexts are in C.Profile after
  /// C.finalize().
  void count(SampleCounter &C, uint64_t Ip) {
    C.count(Maps, 1, Ip, AddrMode::User, 1000, Br, Chain);
  }
  std::string print(const RawProfile &P) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    P.Contexts.print(OS, [&](llvm::raw_ostream &O, Loc L) {
      O << (locDso(L) == 0 ? "" : "libc:")
        << llvm::format_hex(locOffset(L), 0);
    });
    return S;
  }
};

// A sample in A, called from main at 0x100, just after B returned:
//   context at the IP [0x105]; e0 (B returns to 0x325) pushes 0x325, so e0
//   is B's and the range before it ran in [0x105 0x325] (B's body); e1 is
//   the call to B, whose return address 0x325 is on top: pop; its range
//   (A's body) is in [0x105]; e2 calls A from main: pop 0x105; then main.
TEST(Contexts, UnwindsCallsAndReturns) {
  Fixture X;
  SampleCounter C(X.Opts);
  X.stack({0x400350, 0x400105});
  X.lbr({{0x400410, 0x400325},
         {0x400320, 0x400400},
         {0x400100, 0x400300},
         {0x4000f0, 0x4000a0}});
  X.count(C, 0x400350);
  C.finalize();
  EXPECT_EQ(X.print(C.Profile), "C\n"
                                "  B 0xf0 0xa0 1\n"
                                "  B 0x100 0x300 1\n"
                                "  R 0xa0 0x100 1\n"
                                "C 0x105\n"
                                "  B 0x320 0x400 1\n"
                                "  R 0x300 0x320 1\n"
                                "C 0x105 0x325\n"
                                "  B 0x410 0x325 1\n"
                                "  R 0x400 0x410 1\n");
  const ContextStats &S = C.Profile.Contexts.Stats;
  EXPECT_EQ(S.Samples, 1u);
  EXPECT_EQ(S.SamplesWhole, 1u);
  EXPECT_EQ(S.Entries, 4u);
}

// The stack says A was called from 0x110, the branch stack that it was
// called from 0x100: the walk stops at that call; what came before it gets
// no context (but still counts in the context-free profile).
TEST(Contexts, StopsAtACallThatDoesNotMatch) {
  Fixture X;
  SampleCounter C(X.Opts);
  X.stack({0x400350, 0x400115});
  X.lbr({{0x400330, 0x400340},
         {0x400100, 0x400300},
         {0x4000f0, 0x4000a0}});
  X.count(C, 0x400350);
  C.finalize();
  EXPECT_EQ(X.print(C.Profile), "C 0x115\n"
                                "  B 0x330 0x340 1\n"
                                "  R 0x300 0x330 1\n");
  const ContextStats &S = C.Profile.Contexts.Stats;
  EXPECT_EQ(S.SamplesMismatch, 1u);
  EXPECT_EQ(S.Entries, 1u);
  EXPECT_EQ(S.EntriesLeft, 2u);
  EXPECT_EQ(C.Profile.Branches.size(), 3u);
}

// Frames outside the binary cut the context: libc's frame (outermost)
// goes, and a return from libc into the binary (memcpy returning to main)
// pushes main's frame until the call to memcpy pops it again.
TEST(Contexts, ForeignFramesAndReturnsFromLibraries) {
  Fixture X;
  SampleCounter C(X.Opts);
  X.stack({0x400130, 0x7f0010});
  X.lbr({{0x7f0100, 0x400125},   // memcpy returns to main
         {0x7f0050, 0x7f0080},   // inside memcpy
         {0x400120, 0x7f0000},   // main calls memcpy
         {0x4000f0, 0x4000a0}}); // main's loop
  X.count(C, 0x400130);
  C.finalize();
  EXPECT_EQ(X.print(C.Profile), "C\n"
                                "  B 0xf0 0xa0 1\n"
                                "  B 0x120 libc:0x0 1\n"
                                "  R 0xa0 0x120 1\n"
                                "C 0x125\n"
                                "  B libc:0x50 libc:0x80 1\n"
                                "  B libc:0x100 0x125 1\n"
                                "  R libc:0x0 libc:0x50 1\n"
                                "  R libc:0x80 libc:0x100 1\n");
  EXPECT_EQ(C.Profile.Contexts.Stats.SamplesWhole, 1u);
}

// B returns into libc (as _init returns to its caller in libc), then libc
// runs; before that, B was called from A called from main. Going back: the
// return to libc leaves B, whose caller is outside the binary: the root,
// not a frame for a libc address; so the older call into B (from 0x320,
// at the root) stays at the root instead of failing to match.
TEST(Contexts, ReturnToALibraryIsTheRoot) {
  Fixture X;
  SampleCounter C(X.Opts);
  X.stack({0x7f0300});
  X.lbr({{0x7f0250, 0x7f0300},
         {0x400410, 0x7f0200},
         {0x400320, 0x400400}});
  X.count(C, 0x7f0300);
  C.finalize();
  EXPECT_EQ(X.print(C.Profile), "C\n"
                                "  B 0x320 0x400 1\n"
                                "  B 0x410 libc:0x200 1\n"
                                "  B libc:0x250 libc:0x300 1\n"
                                "  R 0x400 0x410 1\n"
                                "  R libc:0x200 libc:0x250 1\n");
  EXPECT_EQ(C.Profile.Contexts.Stats.SamplesWhole, 1u);
  EXPECT_EQ(C.Profile.Contexts.Stats.SamplesMismatch, 0u);
}

// Counters of two threads merge: the same contexts, interned in different
// orders (C2 sees [0x115] first), add up. Sample 1, in A called from
// 0x100: a jump back (0x310 -> 0x300) then 0x330 -> 0x340. Sample 2, in B
// called from A called from main: a loop in B, and before it the call to
// B, which pops 0x325.
TEST(Contexts, MergeAndDepthBound) {
  Fixture X;
  SampleCounter C1(X.Opts), C2(X.Opts);
  X.stack({0x400350, 0x400115});
  X.lbr({{0x400330, 0x400340}});
  X.count(C2, 0x400350);
  X.stack({0x400350, 0x400105});
  X.lbr({{0x400330, 0x400340}, {0x400310, 0x400300}});
  X.count(C1, 0x400350);
  X.stack({0x400410, 0x400325, 0x400105});
  X.lbr({{0x400408, 0x400400}, {0x400320, 0x400400}});
  X.count(C2, 0x400410);
  X.count(C1, 0x400410);
  C1.finalize();
  C2.finalize();
  C1.Profile.merge(C2.Profile);
  EXPECT_EQ(X.print(C1.Profile), "C 0x105\n"
                                 "  B 0x310 0x300 1\n"
                                 "  B 0x320 0x400 2\n"
                                 "  B 0x330 0x340 1\n"
                                 "  R 0x300 0x330 1\n"
                                 "C 0x105 0x325\n"
                                 "  B 0x408 0x400 2\n"
                                 "  R 0x400 0x408 2\n"
                                 "C 0x115\n"
                                 "  B 0x330 0x340 1\n");
  EXPECT_EQ(C1.Profile.Contexts.Stats.Samples, 4u);

  // At most one frame: sample 2 starts in [0x325] (0x105 dropped), and
  // the call to B pops to the root.
  X.Opts.MaxContextDepth = 1;
  SampleCounter C3(X.Opts);
  X.count(C3, 0x400410);
  C3.finalize();
  EXPECT_EQ(X.print(C3.Profile), "C\n"
                                 "  B 0x320 0x400 1\n"
                                 "C 0x325\n"
                                 "  B 0x408 0x400 1\n"
                                 "  R 0x400 0x408 1\n");
  EXPECT_EQ(C3.Profile.Contexts.Stats.DepthCut, 1u);
}

// A call stack's context is kept by stack, but only while the maps stay
// the same: the return address 0x600105 is outside every mapping (so the
// context at the IP is the root) until /bin/app is mapped there too, when
// the same raw stack means [0x105].
TEST(Contexts, StacksAreLookedUpAgainWhenTheMapsChange) {
  Fixture X;
  SampleCounter C(X.Opts);
  X.stack({0x400350, 0x600105});
  X.lbr({{0x400330, 0x400340}});
  X.count(C, 0x400350);
  X.count(C, 0x400350);
  X.Maps.addMmap(mm(0x600000, 0x1000, "/bin/app"));
  X.count(C, 0x400350);
  C.finalize();
  EXPECT_EQ(X.print(C.Profile), "C\n"
                                "  B 0x330 0x340 2\n"
                                "C 0x105\n"
                                "  B 0x330 0x340 1\n");
}

} // namespace
