//===- PreInlinerTest.cpp - the budget pre-inliner's rules, one by one ----===//
//
// A hand-made flat profile in which each of the pre-inliner's rules decides
// one call context. Every expectation is derived by hand below.
//
// Calls (count = calls into the context; size = the callee's bytes):
//   main (no known caller; 100 calls from no context, size 200)
//     @1 hot    1000 calls, 150 bytes
//        @1 rare    15 calls,  12 bytes
//        @2 often  500 calls,  20 bytes
//     @2 big     999 calls, 2000 bytes
//     @3 small   101 calls,   50 bytes
//     @4 warm    100 calls,  150 bytes
//     @5 late     90 calls,   10 bytes
//     @6 cold1     1 call,    10 bytes
// Body samples: main line 10: 1000; each context one line with its calls.
// Sum 1000+1000+15+500+999+101+100+90+1 = 3806.
//   - 10% cutoff (the hotness scale's upper end): 380.6 is reached by the
//     first count, 1000, so Upper = 1000;
//   - 99.9999% cutoff (the cold count): 3805.996 needs every count, the
//     last is 1, so Cold = 1.
// Size limit per call, with CalleeSizeLimit 10 (the scale):
//   10 x 100 x (count - 1) / 999 + 1 bytes:
//   hot 1001, big 1000, often 500.5, small 101.1, warm 100.1, late 90.1,
//   rare 15.01.
//   - cold1: 1 call, at the cold count: out (cold rule);
//   - big (2000 > 1000) and warm (150 > 100.1): out (size rule);
//   - hot, often, small, late, rare: under their limits.
// Share rule (MinCallShare 2 %): rare is called 15 times from hot's
// context, which is called 1000 times: 1.5 % < 2 %: out; often 50 %: in;
// main's calls: shares of main's 100 calls, all >= 90 %, except cold1.
// Budget rule: main's budget is GrowthFactor x 200 bytes (at least 100).
// Candidates are taken hottest first: hot 1000, big 999, often 500 (hot's
// call, offered once hot is kept), small 101, warm 100, late 90, rare 15,
// cold1 1. Code kept: 200 + hot 150 + often 20 + small 50 = 420 before
// late, 430 after it.
//   - GrowthFactor 12 (budget 2400): never reached;
//   - GrowthFactor 2 (budget 400): after small, 420 >= 400: late is out
//     (it is kept with budget 2400).
//
//===----------------------------------------------------------------------===//
#include "FlatProfiles.h"
#include "PreInliner.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace llvm::sampleprof;
using namespace lbr2prof;

namespace {

SampleContextFrameVector site(StringRef F, uint32_t Line) {
  return {SampleContextFrame(FunctionId(F), LineLocation(Line, 0))};
}

struct Handmade {
  FlatProfiles Flat;
  StringMap<uint64_t> Size;

  uint32_t leaf(StringRef F) { return Flat.Suffixes.intern(site(F, 0)); }
  uint32_t ctx(ArrayRef<SampleContextFrameVector> G) { return Flat.base(G); }
  void call(ArrayRef<SampleContextFrameVector> G, StringRef Callee,
            uint64_t Calls) {
    FlatProfiles::Node &N = Flat.at(ctx(G), leaf(Callee));
    N.Head = Calls;
    N.Body[LineLocation(1, 0)] = Calls;
    N.Total = Calls;
  }
  Handmade() {
    FlatProfiles::Node &Main = Flat.at(ctx({}), leaf("main"));
    Main.Head = 100;
    Main.Body[LineLocation(10, 0)] = 1000;
    Main.Total = 1000;
    call({site("main", 1)}, "hot", 1000);
    call({site("main", 1), site("hot", 1)}, "rare", 15);
    call({site("main", 1), site("hot", 2)}, "often", 500);
    call({site("main", 2)}, "big", 999);
    call({site("main", 3)}, "small", 101);
    call({site("main", 4)}, "warm", 100);
    call({site("main", 5)}, "late", 90);
    call({site("main", 6)}, "cold1", 1);
    Size["main"] = 200;
    Size["hot"] = 150;
    Size["rare"] = 12;
    Size["often"] = 20;
    Size["big"] = 2000;
    Size["small"] = 50;
    Size["warm"] = 150;
    Size["late"] = 10;
    Size["cold1"] = 10;
  }
  /// Whether Callee's context under G is still a context.
  bool kept(ArrayRef<SampleContextFrameVector> G, StringRef Callee) {
    const FlatProfiles::Node *N = Flat.find(ctx(G), leaf(Callee));
    return N && !N->Body.empty();
  }
};

/// No inlined copies' sizes: inline frames are not decided.
const DenseMap<uint32_t, uint64_t> NoCopies;

ContextProfileOptions options(double Share, uint64_t Growth) {
  ContextProfileOptions O;
  O.PreInliner = ContextProfileOptions::PreInlinerKind::Budget;
  O.CalleeSizeLimit = 10;
  O.MinCallShare = Share;
  O.GrowthFactor = Growth;
  return O;
}

TEST(PreInliner, EachRuleDecidesOneCall) {
  Handmade H;
  ContextProfileStats St;
  uint64_t Moved = preInlineWithBudget(H.Flat, H.Size, NoCopies, options(2, 12), St);
  EXPECT_EQ(St.HotCallCount, 1u); // the cold count
  EXPECT_TRUE(H.kept({site("main", 1)}, "hot"));
  EXPECT_TRUE(H.kept({site("main", 1), site("hot", 2)}, "often"));
  EXPECT_TRUE(H.kept({site("main", 3)}, "small"));
  EXPECT_TRUE(H.kept({site("main", 5)}, "late"));
  EXPECT_FALSE(H.kept({site("main", 6)}, "cold1"));           // cold
  EXPECT_FALSE(H.kept({site("main", 2)}, "big"));             // size
  EXPECT_FALSE(H.kept({site("main", 4)}, "warm"));            // size
  EXPECT_FALSE(H.kept({site("main", 1), site("hot", 1)}, "rare")); // share
  EXPECT_EQ(Moved, 4u);
  // Moved contexts go to their callee's base profile.
  EXPECT_TRUE(H.kept({}, "rare"));
  EXPECT_TRUE(H.kept({}, "big"));
}

TEST(PreInliner, WithoutTheShareRuleTheRareCallStays) {
  Handmade H;
  ContextProfileStats St;
  uint64_t Moved = preInlineWithBudget(H.Flat, H.Size, NoCopies, options(0, 12), St);
  EXPECT_TRUE(H.kept({site("main", 1), site("hot", 1)}, "rare"));
  EXPECT_EQ(Moved, 3u);
}

TEST(PreInliner, TheBudgetStopsTheLateCall) {
  Handmade H;
  ContextProfileStats St;
  uint64_t Moved = preInlineWithBudget(H.Flat, H.Size, NoCopies, options(2, 2), St);
  EXPECT_TRUE(H.kept({site("main", 1)}, "hot"));
  EXPECT_TRUE(H.kept({site("main", 1), site("hot", 2)}, "often"));
  EXPECT_TRUE(H.kept({site("main", 3)}, "small"));
  EXPECT_FALSE(H.kept({site("main", 5)}, "late")); // budget
  EXPECT_EQ(Moved, 5u);
}

/// A context no branch stack saw entered (no head samples) whose entry
/// line ran 0 times and whose loop ran 900 (bzip2's mainSort in small):
/// main@7 calls loop (50 bytes). The body counts gain 900: sum 4706, the
/// 10 % cutoff is still 1000 and the cold count still 1. FirstCounted
/// takes 900 calls: above the cold count, size limit
/// 10 x 100 x 899 / 999 + 1 = 900.9 bytes, share 900 % of main's 100:
/// kept. FirstSite reads the entry's 0, then 1 for a context with samples:
/// at the cold count, moved.
TEST(PreInliner, TheEntryEstimateReadsTheFirstSite) {
  for (auto How : {ContextProfileOptions::EntryKind::FirstCounted,
                   ContextProfileOptions::EntryKind::FirstSite}) {
    Handmade H;
    FlatProfiles::Node &N = H.Flat.at(H.ctx({site("main", 7)}), H.leaf("loop"));
    N.Body[LineLocation(1, 0)] = 0;
    N.Body[LineLocation(9, 0)] = 900;
    N.Total = 900;
    H.Size["loop"] = 50;
    ContextProfileOptions O = options(2, 12);
    O.EntryEstimate = How;
    ContextProfileStats St;
    preInlineWithBudget(H.Flat, H.Size, NoCopies, O, St);
    EXPECT_EQ(St.HotCallCount, 1u);
    EXPECT_EQ(H.kept({site("main", 7)}, "loop"),
              How == ContextProfileOptions::EntryKind::FirstCounted);
    EXPECT_TRUE(H.kept({site("main", 1)}, "hot")); // head samples: as before
  }
}

} // namespace

namespace {

/// Inline frames decided as calls (ContextProfileOptions::InlinedCode::
/// Decide): main (50 bytes of its own, entered 100 times from no context)
/// had three functions inlined in the profiled binary, and one inlined
/// into the first:
///   main@7 hot1  entry line 1000, a loop line 5000; its copy 700 bytes
///                (its name alone says 5: the copy's size must decide)
///     hot1@3 inner  entry line 800; copy 20 bytes
///   main@8 hot2  entry line 500; copy 10 bytes
///   main@9 cold  entry line 1; copy 10 bytes
/// The hotness scale is taken first, per copy: counts 5000, 1000 (main
/// line 10), 1000, 800, 500, 1: sum 8301, 10% cutoff 5000, cold count 1.
/// inferInlinedCalls() then gives each caller a call at the inline site
/// with the copy's entry count (and as many samples there): main@7 1000,
/// @8 500, @9 1, hot1@3 800. Budget: max(12 x 50, 100) = 600 bytes. Hottest first: hot1
/// (1000 calls) is kept (50 < 600; its limit, 10 x 100 x 999 / 4999 x 100
/// for code inlined before, is far above 700): 750 bytes. Then inner (800,
/// offered with hot1) and hot2 (500) find the budget spent, and cold is at
/// the cold count: the three move to their base profiles, still marked as
/// inlined in the binary, and leave their calls behind.
struct Inlined {
  FlatProfiles Flat;
  StringMap<uint64_t> Size;
  DenseMap<uint32_t, uint64_t> CopySize;

  uint32_t suffix(ArrayRef<SampleContextFrame> Frames) {
    return Flat.Suffixes.intern(SampleContextFrameVector(Frames.begin(), Frames.end()));
  }
  SampleContextFrame frame(StringRef F, uint32_t Line) {
    return SampleContextFrame(FunctionId(F), LineLocation(Line, 0));
  }
  void copy(ArrayRef<SampleContextFrame> Frames, uint64_t Entry,
            uint64_t Bytes) {
    uint32_t S = suffix(Frames);
    FlatProfiles::Node &N = Flat.at(Flat.base({}), S);
    N.Body[LineLocation(1, 0)] = Entry;
    N.Total = Entry;
    CopySize[S] = Bytes;
  }
  Inlined() {
    FlatProfiles::Node &Main = Flat.at(Flat.base({}), suffix({frame("main", 0)}));
    Main.Head = 100;
    Main.Body[LineLocation(10, 0)] = 1000;
    Main.Total = 1000;
    copy({frame("main", 7), frame("hot1", 0)}, 1000, 700);
    Flat.at(Flat.base({}), suffix({frame("main", 7), frame("hot1", 0)}))
        .Body[LineLocation(2, 0)] = 5000;
    copy({frame("main", 7), frame("hot1", 3), frame("inner", 0)}, 800, 20);
    copy({frame("main", 8), frame("hot2", 0)}, 500, 10);
    copy({frame("main", 9), frame("cold", 0)}, 1, 10);
    Size["main"] = 50;
    Size["hot1"] = 5;
    Size["inner"] = 20;
    Size["hot2"] = 10;
    Size["cold"] = 10;
  }
  const FlatProfiles::Node *node(ArrayRef<SampleContextFrame> Sites,
                                 StringRef F) {
    std::vector<SampleContextFrameVector> G;
    for (const SampleContextFrame &S : Sites)
      G.push_back({S});
    const FlatProfiles::Node *N =
        Flat.find(Flat.base(G), suffix({frame(F, 0)}));
    return N && !N->Body.empty() ? N : nullptr;
  }
  uint64_t calls(const FlatProfiles::Node *N, uint32_t Line, StringRef F) {
    return N->Calls.lookup({LineLocation(Line, 0), F});
  }
  /// What buildContextProfile does before its pre-inliner when inline
  /// frames are decided: the hotness scale taken, the frames split, the
  /// copies' calls inferred. Returns the options to decide with.
  ContextProfileOptions prepare(ContextProfileOptions::InlinedCode How) {
    Cutoffs = Flat.hotnessCutoffs();
    Flat.splitInlineFrames();
    ContextProfileOptions O = options(2, 12);
    O.EntryEstimate = ContextProfileOptions::EntryKind::FirstSite;
    O.Inlined = How;
    inferInlinedCalls(Flat, O.EntryEstimate);
    return O;
  }
  std::vector<uint64_t> Cutoffs;
};

TEST(PreInliner, InlineFramesAreDecidedAsCalls) {
  Inlined I;
  ContextProfileOptions O =
      I.prepare(ContextProfileOptions::InlinedCode::Decide);
  ContextProfileStats St;
  uint64_t Moved =
      preInlineWithBudget(I.Flat, I.Size, I.CopySize, O, St, I.Cutoffs);
  EXPECT_EQ(St.HotCallCount, 1u);
  EXPECT_EQ(Moved, 3u);
  const FlatProfiles::Node *Hot1 = I.node({I.frame("main", 7)}, "hot1");
  ASSERT_TRUE(Hot1);
  EXPECT_TRUE(Hot1->wasInlined());
  EXPECT_EQ(Hot1->Body.size(), 3u); // lines 1, 2 and the call at 3
  EXPECT_FALSE(I.node({I.frame("main", 7), I.frame("hot1", 3)}, "inner"));
  EXPECT_FALSE(I.node({I.frame("main", 8)}, "hot2"));
  EXPECT_FALSE(I.node({I.frame("main", 9)}, "cold"));
  for (StringRef F : {"inner", "hot2", "cold"}) {
    const FlatProfiles::Node *Out = I.node({}, F);
    ASSERT_TRUE(Out) << F.str();
    EXPECT_TRUE(Out->wasInlined()) << F.str();
  }
  const FlatProfiles::Node *Main = I.node({}, "main");
  ASSERT_TRUE(Main);
  EXPECT_FALSE(Main->wasInlined());
  EXPECT_EQ(I.calls(Main, 7, "hot1"), 1000u);
  EXPECT_EQ(I.calls(Main, 8, "hot2"), 500u);
  EXPECT_EQ(I.calls(Main, 9, "cold"), 1u);
  EXPECT_EQ(I.calls(Hot1, 3, "inner"), 800u);
}

/// The same profile sized by names alone (hot1: 5 bytes) keeps hot1, inner
/// and hot2 within the budget (50 + 5 + 20 + 10 < 600): the copy's size is
/// what moved them.
TEST(PreInliner, AnInlinedCopyIsSizedByItsOwnCode) {
  Inlined I;
  ContextProfileOptions O =
      I.prepare(ContextProfileOptions::InlinedCode::Decide);
  ContextProfileStats St;
  EXPECT_EQ(preInlineWithBudget(I.Flat, I.Size, NoCopies, O, St, I.Cutoffs),
            1u);
  EXPECT_TRUE(I.node({I.frame("main", 7), I.frame("hot1", 3)}, "inner"));
  EXPECT_TRUE(I.node({I.frame("main", 8)}, "hot2"));
  EXPECT_FALSE(I.node({I.frame("main", 9)}, "cold"));
}

} // namespace

namespace {

/// InlinedCode::Cold on the same profile: code inlined in the binary
/// stays as it was, whatever its size and the budget (hot1's 700 bytes
/// are in main's already), unless it is entered at most the cold count:
/// only cold moves out, and leaves its call.
TEST(PreInliner, ColdModeMovesOnlyTheColdCopy) {
  Inlined I;
  ContextProfileOptions O = I.prepare(ContextProfileOptions::InlinedCode::Cold);
  ContextProfileStats St;
  EXPECT_EQ(preInlineWithBudget(I.Flat, I.Size, NoCopies, O, St, I.Cutoffs),
            1u);
  EXPECT_EQ(St.HotCallCount, 1u);
  EXPECT_TRUE(I.node({I.frame("main", 7)}, "hot1"));
  EXPECT_TRUE(I.node({I.frame("main", 7), I.frame("hot1", 3)}, "inner"));
  EXPECT_TRUE(I.node({I.frame("main", 8)}, "hot2"));
  EXPECT_FALSE(I.node({I.frame("main", 9)}, "cold"));
  const FlatProfiles::Node *Cold = I.node({}, "cold");
  ASSERT_TRUE(Cold);
  EXPECT_TRUE(Cold->wasInlined());
  EXPECT_EQ(I.calls(I.node({}, "main"), 9, "cold"), 1u);
}

} // namespace

namespace {

/// Three call sites, and the first two as one group.
struct Sites {
  SampleContextFrameVector Main1 = site("main", 1), Hot2 = site("hot", 2),
                           Often3 = site("often", 3);
  SampleContextFrameVector Both = joined(Main1, Hot2);
  static SampleContextFrameVector joined(SampleContextFrameVector A,
                                         const SampleContextFrameVector &B) {
    A.append(B.begin(), B.end());
    return A;
  }
};

TEST(FlatProfilesChains, ABaseIsItsFramesHoweverItsGroupsCome) {
  // The chain trie (extend, baseAt) against base(): one id for one frame
  // vector, whether its frames come as one group, a group each, or a
  // prefix at a time; and the groups remembered are the first ones given.
  FlatProfiles Flat;
  auto [Main1, Hot2, Often3, Both] = Sites();
  uint32_t Whole = Flat.base({Both, Often3});
  uint32_t Split = Flat.base({Main1, Hot2, Often3});
  EXPECT_EQ(Whole, Split);
  EXPECT_EQ(Flat.groupsOf(Whole).size(), 2u);
  uint32_t P = FlatProfiles::ChainRoot;
  std::vector<uint32_t> Prefixes;
  for (const SampleContextFrameVector &G : {Main1, Hot2, Often3}) {
    P = Flat.extend(P, G);
    Prefixes.push_back(Flat.baseAt(P));
  }
  EXPECT_EQ(Prefixes[2], Whole);
  EXPECT_EQ(Prefixes[0], Flat.base({Main1}));
  EXPECT_EQ(Prefixes[1], Flat.base({Both}));
  EXPECT_NE(Prefixes[0], Prefixes[1]);
  // The trie remembers a base's own grouping, and a node's last group.
  EXPECT_EQ(Flat.chainGroup(Flat.chainOf(Whole)), Often3);
  EXPECT_EQ(Flat.chainGroup(Flat.chainParent(Flat.chainOf(Whole))), Both);
  // No groups: the function's own base, at the root.
  EXPECT_EQ(Flat.baseAt(FlatProfiles::ChainRoot), Flat.base({}));
  EXPECT_TRUE(Flat.groupsOf(Flat.base({})).empty());
}

} // namespace

namespace {

TEST(FlatProfilesChains, BasesMadeAfterTheSplitAreTheirFrames) {
  // After splitInlineFrames(), a base is found by its one-frame chain
  // without its frames being interned: the frames of a base made before
  // the split give that base, new frames a new one (the same each time),
  // and each base's frames are its own.
  FlatProfiles Flat;
  auto [Main1, Hot2, Often3, Both] = Sites();
  uint32_t Old = Flat.base({Both});
  Flat.at(Old, Flat.leafOf("often")).Total = 7;
  Flat.splitInlineFrames();
  EXPECT_EQ(Flat.base({Main1, Hot2}), Old);
  EXPECT_EQ(Flat.base({Both}), Old);
  uint32_t New = Flat.base({Main1, Hot2, Often3});
  EXPECT_NE(New, Old);
  EXPECT_NE(New, Flat.base({}));
  EXPECT_EQ(Flat.base({Main1, Hot2, Often3}), New);
  EXPECT_EQ(Flat.base({Both, Often3}), New);
  uint32_t P = FlatProfiles::ChainRoot;
  for (const SampleContextFrameVector &G : {Main1, Hot2, Often3})
    P = Flat.extend(P, G);
  EXPECT_EQ(Flat.baseAt(P), New);
  uint32_t Other = Flat.base({Main1, Often3});
  EXPECT_NE(Other, New);
  EXPECT_NE(Other, Old);
  auto names = [&](uint32_t Base) {
    std::vector<std::string> V;
    for (const SampleContextFrame &F : Flat.framesOf(Base))
      V.push_back((F.Func.stringRef() + ":" + Twine(F.Location.LineOffset)).str());
    return V;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(Old), (V{"main:1", "hot:2"}));
  EXPECT_EQ(names(New), (V{"main:1", "hot:2", "often:3"}));
  EXPECT_EQ(names(Other), (V{"main:1", "often:3"}));
  EXPECT_TRUE(names(Flat.base({})).empty());
}

} // namespace
