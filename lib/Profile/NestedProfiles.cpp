//===- NestedProfiles.cpp - flat context profiles to nested ones ----------===//
//
// A context profile is known here by its place in the tree of contexts:
// the base of its frames but the last (FlatProfiles' one-frame chains: one
// id per frame vector) and its own function (a leaf id). Its caller is the
// base's chain's parent with the chain's last frame as its function, and
// that frame's location is the call site. The three steps that once took
// every profile through a SampleProfileMap keyed by its whole context
// (hashing it, an MD5 per frame, at every lookup; re2's CSSPGO spent 0.11
// of its 0.41 s there, bench/pgo) are done on that tree:
//   - callers made for contexts whose caller has no profile, deepest first
//     and in context order, as before (only the contexts that lack a
//     caller are sorted: the others never act);
//   - each profile nested in its caller's at its call site, callees in
//     the order of LLVM's ProfileConverter (by FunctionSamples::
//     getCallSiteHash()), its call target and as many body samples taken
//     from the caller, as convertCSProfiles() does;
//   - the top-level profiles put in R.Profiles in name order (the
//     extbinary function metadata follows the map's order, so that order
//     is the one profiles are inserted in).
//
//===----------------------------------------------------------------------===//
#include "NestedProfiles.h"
#include "llvm/ADT/DenseMap.h"
#include <algorithm>
#include <deque>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {
namespace {

class Nester {
public:
  Nester(FlatProfiles &Flat, uint32_t Root) : Flat(Flat), Root(Root) {}

  /// Makes a profile of every flat node (nodes of one context add up),
  /// then frees the nodes. Returns how many profiles were made.
  size_t take(function_ref<NodeMarks(uint32_t, uint32_t,
                                     const FlatProfiles::Node &)>
                  Marks);
  void inferCallers();
  void nest();
  /// The top-level profiles, into Out in name order.
  void putTopLevel(SampleProfileMap &Out);

private:
  struct Context {
    /// The base of the frames before the last, and the last frame's
    /// function (a leaf: FlatProfiles::leafOf()).
    uint32_t Base, Leaf;
    /// The caller's context (NoParent at the top level or not asked yet)
    /// and the call site in it.
    uint32_t Parent = NoParent;
    LineLocation Site{0, 0};
    bool Has = false;
    FunctionSamples FS;
  };
  static constexpr uint32_t NoParent = ~0u;

  uint32_t contextOf(uint32_t Base, uint32_t Leaf) {
    auto [It, New] = Index.try_emplace((uint64_t(Base) << 32) | Leaf,
                                       uint32_t(Contexts.size()));
    if (New) {
      Contexts.emplace_back();
      Contexts.back().Base = Base;
      Contexts.back().Leaf = Leaf;
    }
    return It->second;
  }
  FunctionId leafName(uint32_t Leaf) const {
    return Flat.Suffixes.get(Leaf).front().Func;
  }
  /// The number of frames of context C.
  size_t depth(uint32_t C) const { return Flat.depthOf(Contexts[C].Base) + 1; }
  /// The caller's context of C (made, without a profile, if new), or
  /// NoParent for a function's base profile.
  uint32_t parentOf(uint32_t C) {
    Context &X = Contexts[C];
    if (X.Parent != NoParent || X.Base == Root)
      return X.Parent;
    uint32_t T = Flat.chainOf(X.Base);
    LineLocation Site = Flat.chainGroup(T).front().Location;
    uint32_t P = contextOf(Flat.baseAt(Flat.chainParent(T)),
                           Flat.leafOfGroup(Flat.chainGroupId(T)));
    // (contextOf() grows the deque at its end: X stays where it is.)
    X.Parent = P;
    X.Site = Site;
    return P;
  }
  /// C's whole context, outermost frame first.
  SampleContextFrameVector framesOf(uint32_t C) const {
    SampleContextFrameVector V = Flat.framesOf(Contexts[C].Base);
    V.emplace_back(leafName(Contexts[C].Leaf), LineLocation(0, 0));
    return V;
  }

  FlatProfiles &Flat;
  uint32_t Root;
  std::deque<Context> Contexts;
  DenseMap<uint64_t, uint32_t> Index;
};

size_t Nester::take(function_ref<NodeMarks(uint32_t, uint32_t,
                                           const FlatProfiles::Node &)>
                        Marks) {
  Flat.oneFrameChains();
  size_t Made = 0;
  Flat.forEachNode([&](uint32_t Base, uint32_t Suffix,
                       const FlatProfiles::Node &N) {
    // A suffix of inline frames: its frames but the last extend the base.
    // (extend() and leafOf() may grow the tables S is in: their keys stay
    // where they are, FrameTable::get.)
    const SampleContextFrameVector &S = Flat.Suffixes.get(Suffix);
    uint32_t B = Base;
    if (S.size() > 1) {
      uint32_t P = Flat.chainOf(Base);
      for (size_t K = 0; K + 1 < S.size(); ++K)
        P = Flat.extend(P, {S[K]});
      B = Flat.baseAt(P);
    }
    uint32_t Leaf = S.size() > 1 ? Flat.leafOf(S.back().Func.stringRef())
                                 : Flat.leafOfSuffix(Suffix);
    Context &C = Contexts[contextOf(B, Leaf)];
    if (!C.Has) {
      C.Has = true;
      C.FS.setContext(SampleContext(S.back().Func));
      ++Made;
    }
    FunctionSamples &FS = C.FS;
    for (const auto &[L, Count] : N.Body)
      FS.addBodySamples(L.LineOffset, L.Discriminator, Count);
    for (const auto &[LN, Count] : N.Calls)
      FS.addCalledTargetSamples(LN.first.LineOffset, LN.first.Discriminator,
                                FunctionId(LN.second), Count);
    FS.addHeadSamples(N.Head);
    FS.addTotalSamples(N.Total);
    NodeMarks M = Marks(Base, Suffix, N);
    FS.setFunctionHash(M.FunctionHash);
    for (uint32_t A : {ContextWasInlined, ContextShouldBeInlined,
                       ContextDuplicatedIntoBase})
      if (M.Attributes & A)
        FS.getContext().setAttribute(ContextAttributeMask(A));
  });
  Flat.clearNodes();
  return Made;
}

void Nester::inferCallers() {
  // The contexts whose caller has no profile, deepest first, then in
  // context order (SampleContext's); a caller made for one goes after the
  // contexts of its depth, and makes its own caller in turn. The others
  // never act: leaving them out keeps every decision.
  std::vector<uint32_t> Work;
  size_t N = Contexts.size();
  for (uint32_t C = 0; C < N; ++C)
    if (Contexts[C].Has && Contexts[C].Base != Root &&
        !Contexts[parentOf(C)].Has)
      Work.push_back(C);
  if (Work.empty())
    return;
  {
    std::vector<std::pair<size_t, SampleContextFrameVector>> Keys;
    for (uint32_t C : Work)
      Keys.push_back({depth(C), framesOf(C)});
    std::vector<uint32_t> Order(Work.size());
    for (uint32_t K = 0; K < Order.size(); ++K)
      Order[K] = K;
    llvm::sort(Order, [&](uint32_t A, uint32_t B) {
      if (Keys[A].first != Keys[B].first)
        return Keys[A].first > Keys[B].first;
      return SampleContext(Keys[A].second) < SampleContext(Keys[B].second);
    });
    std::vector<uint32_t> Sorted;
    for (uint32_t K : Order)
      Sorted.push_back(Work[K]);
    Work = std::move(Sorted);
  }
  for (size_t K = 0; K < Work.size(); ++K) {
    uint32_t C = Work[K];
    uint32_t P = parentOf(C);
    if (Contexts[P].Has)
      continue;
    const FunctionSamples &Callee = Contexts[C].FS;
    // As many calls as the callee's head samples estimate, 1 when it has
    // no sample with a location (so that the call shows as live).
    uint64_t Calls = Callee.getHeadSamplesEstimate();
    if (!Calls && Callee.getBodySamples().empty())
      Calls = 1;
    LineLocation Site = Contexts[C].Site;
    Context &Caller = Contexts[P];
    Caller.Has = true;
    Caller.FS.setContext(SampleContext(leafName(Caller.Leaf)));
    Caller.FS.addBodySamples(Site.LineOffset, Site.Discriminator, Calls);
    Caller.FS.addCalledTargetSamples(Site.LineOffset, Site.Discriminator,
                                     Callee.getFunction(), Calls);
    Caller.FS.addTotalSamples(Calls);
    if (Caller.Base != Root) {
      size_t D = depth(P);
      auto At = std::upper_bound(
          Work.begin() + K + 1, Work.end(), D,
          [&](size_t X, uint32_t Y) { return X > depth(Y); });
      Work.insert(At, P);
    }
  }
}

void Nester::nest() {
  // Every context but a base profile has a caller with a profile now.
  // Callers by depth, deepest first, so that a callee is whole when it is
  // nested; each caller's callees in ProfileConverter's order.
  DenseMap<uint32_t, std::vector<uint32_t>> Callees;
  std::vector<uint32_t> Callers;
  for (uint32_t C = 0; C < Contexts.size(); ++C) {
    if (!Contexts[C].Has || Contexts[C].Base == Root)
      continue;
    auto [It, New] = Callees.try_emplace(parentOf(C));
    if (New)
      Callers.push_back(It->first);
    It->second.push_back(C);
  }
  std::vector<size_t> Depth(Contexts.size());
  for (uint32_t P : Callers)
    Depth[P] = depth(P);
  llvm::sort(Callers, [&](uint32_t A, uint32_t B) {
    return Depth[A] != Depth[B] ? Depth[A] > Depth[B] : A < B;
  });
  // MD5 of each leaf's name, once.
  DenseMap<uint32_t, uint64_t> NameHash;
  auto siteHash = [&](uint32_t C) {
    auto [It, New] = NameHash.try_emplace(Contexts[C].Leaf);
    if (New)
      It->second = leafName(Contexts[C].Leaf).getHashCode();
    uint64_t Loc = Contexts[C].Site.getHashCode();
    return It->second + (Loc << 5) + Loc; // SampleContextFrame::getHashCode
  };
  for (uint32_t P : Callers) {
    std::vector<uint32_t> &Kids = Callees[P];
    std::vector<std::pair<uint64_t, uint32_t>> ByHash;
    for (uint32_t C : Kids)
      ByHash.push_back({siteHash(C), C});
    llvm::sort(ByHash);
    FunctionSamples &Caller = Contexts[P].FS;
    for (auto [Hash, C] : ByHash) {
      FunctionSamples &Callee = Contexts[C].FS;
      FunctionId F = Callee.getFunction();
      LineLocation Site = Contexts[C].Site;
      uint64_t Total = Callee.getTotalSamples();
      Caller.functionSamplesAt(Site).emplace(F, std::move(Callee));
      Caller.addTotalSamples(Total);
      Caller.removeTotalSamples(Caller.removeCalledTargetAndBodySample(
          Site.LineOffset, Site.Discriminator, F));
      Contexts[C].Has = false;
    }
  }
}

void Nester::putTopLevel(SampleProfileMap &Out) {
  std::vector<FunctionSamples *> ByName;
  for (Context &C : Contexts)
    if (C.Has && C.Base == Root)
      ByName.push_back(&C.FS);
  llvm::sort(ByName, [](const FunctionSamples *A, const FunctionSamples *B) {
    return A->getFunction().stringRef() < B->getFunction().stringRef();
  });
  for (FunctionSamples *FS : ByName)
    Out.create(FS->getContext()) = std::move(*FS);
}

} // namespace

void nestProfiles(
    FlatProfiles &Flat, uint32_t Root,
    function_ref<NodeMarks(uint32_t, uint32_t, const FlatProfiles::Node &)>
        Marks,
    ContextProfileResult &R) {
  Nester N(Flat, Root);
  R.Stats.ContextProfiles = N.take(Marks);
  N.inferCallers();
  N.nest();
  N.putTopLevel(R.Profiles);
}

} // namespace lbr2prof
