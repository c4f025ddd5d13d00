//===- NestedProfilesTest.cpp - flat context profiles nested --------------===//
//
// nestProfiles() against LLVM's own ProfileConverter, the judge: the same
// flat profiles, keyed by their whole contexts in a SampleProfileMap and
// converted by convertCSProfiles(), must give the same nested profiles.
//
// Contexts (frames; body samples and calls, total):
//   main            line 10: 100; line 1: 30 calls hot; line 2: 5 calls
//                   cold; line 3: 7; total 142
//   main:1 hot      line 1: 30; line 2: 20 calls leaf, 15 calls other;
//                   head 30, total 65
//   main:1 hot:2 leaf  line 1: 20; total 20 (hot's line 2 keeps 35 - 20)
//   main:2 cold     line 1: 5; total 5
//   main:3 mid:4 deep  line 1: 7; total 7. mid has no profile under main:3:
//                   one is made (as llvm-profgen's
//                   populateInferredFunctionSamples does) with deep's 7
//                   calls at line 4, and nested in main at line 3.
//   alpha           line 1: 3; total 3 (a second top-level profile)
//
//===----------------------------------------------------------------------===//
#include "NestedProfiles.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace llvm::sampleprof;
using namespace lbr2prof;

namespace {

SampleContextFrame frame(StringRef F, uint32_t Line) {
  return SampleContextFrame(FunctionId(F), LineLocation(Line, 0));
}

struct Case {
  std::vector<SampleContextFrame> Sites;
  StringRef Func;
  std::vector<std::pair<uint32_t, uint64_t>> Body;
  std::vector<std::tuple<uint32_t, StringRef, uint64_t>> Calls;
  uint64_t Head, Total;
};

std::vector<Case> cases() {
  return {
      {{}, "main", {{10, 100}, {1, 30}, {2, 5}, {3, 7}},
       {{1, "hot", 30}, {2, "cold", 5}}, 0, 142},
      {{frame("main", 1)}, "hot", {{1, 30}, {2, 35}},
       {{2, "leaf", 20}, {2, "other", 15}}, 30, 65},
      {{frame("main", 1), frame("hot", 2)}, "leaf", {{1, 20}}, {}, 0, 20},
      {{frame("main", 2)}, "cold", {{1, 5}}, {}, 0, 5},
      {{frame("main", 3), frame("mid", 4)}, "deep", {{1, 7}}, {}, 0, 7},
      {{}, "alpha", {{1, 3}}, {}, 0, 3},
  };
}

void fill(FunctionSamples &FS, const Case &C) {
  for (auto [Line, Count] : C.Body)
    FS.addBodySamples(Line, 0, Count);
  for (auto [Line, Callee, Count] : C.Calls)
    FS.addCalledTargetSamples(Line, 0, FunctionId(Callee), Count);
  FS.addHeadSamples(C.Head);
  FS.addTotalSamples(C.Total);
}

TEST(NestedProfiles, AsLLVMsConverterNestsThem) {
  // The judge: flat profiles by whole context, mid's made by hand.
  std::deque<SampleContextFrameVector> Frames;
  SampleProfileMap Expected;
  for (const Case &C : cases()) {
    Frames.emplace_back(C.Sites.begin(), C.Sites.end());
    Frames.back().push_back(frame(C.Func, 0));
    fill(Expected.create(SampleContext(Frames.back())), C);
  }
  Frames.push_back({frame("main", 3), frame("mid", 0)});
  FunctionSamples &Mid = Expected.create(SampleContext(Frames.back()));
  Mid.addBodySamples(4, 0, 7);
  Mid.addCalledTargetSamples(4, 0, FunctionId("deep"), 7);
  Mid.addTotalSamples(7);
  ProfileConverter(Expected).convertCSProfiles();

  FlatProfiles Flat;
  uint32_t Root = Flat.base({});
  for (const Case &C : cases()) {
    std::vector<SampleContextFrameVector> Groups;
    for (const SampleContextFrame &F : C.Sites)
      Groups.push_back({F});
    FlatProfiles::Node &N = Flat.at(Flat.base(Groups), Flat.leafOf(C.Func));
    for (auto [Line, Count] : C.Body)
      N.Body[LineLocation(Line, 0)] += Count;
    for (auto [Line, Callee, Count] : C.Calls)
      N.Calls[{LineLocation(Line, 0), Callee}] += Count;
    N.Head = C.Head;
    N.Total = C.Total;
  }
  ContextProfileResult R;
  nestProfiles(
      Flat, Root,
      [](uint32_t, uint32_t, const FlatProfiles::Node &) {
        return NodeMarks();
      },
      R);
  EXPECT_EQ(R.Stats.ContextProfiles, 6u);

  ASSERT_EQ(R.Profiles.size(), Expected.size());
  std::vector<std::string> Order;
  for (const auto &[Key, FS] : R.Profiles) {
    Order.push_back(FS.getFunction().str());
    auto It = Expected.find(FS.getContext());
    ASSERT_NE(It, Expected.end()) << FS.getFunction().str();
    EXPECT_EQ(FS, It->second) << FS.getFunction().str();
  }
  // What the judge shows by hand: every context nested in main.
  llvm::sort(Order);
  EXPECT_EQ(Order, (std::vector<std::string>{"alpha", "main"}));
  const FunctionSamples &Main =
      R.Profiles.find(SampleContext(FunctionId("main")))->second;
  EXPECT_EQ(Main.getTotalSamples(), 142u + 65 + 5 + 7 - 30 - 5);
  const FunctionSamplesMap *AtMid = Main.findFunctionSamplesMapAt(
      LineLocation(3, 0));
  ASSERT_TRUE(AtMid);
  EXPECT_EQ(AtMid->begin()->second.getFunction().stringRef(), "mid");
  EXPECT_EQ(AtMid->begin()->second.getTotalSamples(), 7u);
}

} // namespace
