//===- FlatProfiles.h - context profiles under construction -----*- C++ -*-===//
//
// Private to lib/Profile: the flat context-sensitive profiles the context
// profile builder fills (ContextProfileBuilder.cpp) and the pre-inliners
// prune (PreInliner.cpp), keyed by interned frame vectors.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_PROFILE_FLATPROFILES_H
#define LBR2PROF_LIB_PROFILE_FLATPROFILES_H

#include "lbr2prof/Profile/ContextProfileBuilder.h"
#include "lbr2prof/Support/Hash.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ProfileData/SampleProf.h"
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

namespace lbr2prof {

/// Frame vectors interned to ids, so a profile under construction is keyed
/// by two small numbers rather than a vector compared frame by frame.
class FrameTable {
public:
  uint32_t intern(const llvm::sampleprof::SampleContextFrameVector &V) {
    auto [It, New] = Ids.try_emplace(V, uint32_t(Vectors.size()));
    if (New)
      Vectors.push_back(&It->first);
    return It->second;
  }
  /// Id's frames; the reference stays valid while the table grows (its
  /// keys are in the nodes of a node-based map).
  const llvm::sampleprof::SampleContextFrameVector &get(uint32_t Id) const {
    return *Vectors[Id];
  }

private:
  /// Hashed by the frames' names (not FunctionId's MD5) and locations; a
  /// std::map compared frame by frame, name by name, was a sixth of a
  /// CSSPGO run's instructions (Lua, 40k samples: 211M of 1.33G). A
  /// name counts by its length and its first and last 8 bytes: hashing all
  /// of it (llvm::hash_value, a byte at a time) was 173M of sqlite's 3.6G,
  /// and 98M by xxh3. Names that agree there only share a bucket; the map
  /// is only looked up, never walked, so the hash decides nothing else.
  struct Hash {
    static uint64_t nameHash(llvm::StringRef N) {
      uint64_t Head = 0, Tail = 0;
      if (N.size() >= 8) {
        std::memcpy(&Head, N.data(), 8);
        std::memcpy(&Tail, N.data() + N.size() - 8, 8);
      } else {
        for (char C : N)
          Head = (Head << 8) | uint8_t(C);
      }
      return hashMix(hashMix(N.size(), Head), Tail);
    }
    size_t operator()(const llvm::sampleprof::SampleContextFrameVector &V) const {
      uint64_t H = V.size();
      for (const llvm::sampleprof::SampleContextFrame &F : V)
        H = hashMix(hashMix(hashMix(H, nameHash(F.Func.stringRef())),
                            F.Location.LineOffset),
                    F.Location.Discriminator);
      return size_t(H);
    }
  };
  std::unordered_map<llvm::sampleprof::SampleContextFrameVector, uint32_t, Hash>
      Ids;
  std::vector<const llvm::sampleprof::SampleContextFrameVector *> Vectors;
};

/// Values by key, in key order: what a std::map gave, without a heap node
/// per key. A profile's counts by location (sqlite's 70k context profiles
/// are filled, merged by the pre-inliner and walked: its CSSPGO run went
/// from 2,806M to 2,764M instructions, -j1) and its calls by (location,
/// callee) (a node went from 96 to 72 bytes, and a call from an 80-byte
/// tree node to 32 bytes: bench/pgo's sqlite contexts on lines 50.1k ->
/// 46.1k page faults, 126 -> 122 MB, re2's CSSPGO 17.3k -> 16.0k, 57 -> 54
/// MB); the pre-inliner's children of a call (PreInliner.cpp). Keys mostly
/// come in order, so most insertions append. An entry stays where it is
/// only until the next insertion.
template <typename Key, typename Value> class SortedMap {
public:
  using Entry = std::pair<Key, Value>;
  /// K's entry, made with Val if K has none; true if it was made.
  std::pair<Entry *, bool> try_emplace(const Key &K, Value Val) {
    if (V.empty() || V.back().first < K) {
      V.push_back({K, Val});
      return {&V.back(), true};
    }
    auto It = lowerBound(V, K);
    if (It != V.end() && It->first == K)
      return {&*It, false};
    return {&*V.insert(It, {K, Val}), true};
  }
  Value &operator[](const Key &K) {
    return try_emplace(K, Value()).first->second;
  }
  /// K's value, Value() if it has none.
  Value lookup(const Key &K) const {
    auto It = lowerBound(V, K);
    return It != V.end() && It->first == K ? It->second : Value();
  }
  /// Adds every value of O to this one's (both in key order: one merge).
  void add(const SortedMap &O) {
    if (O.V.empty())
      return;
    std::vector<Entry> M;
    M.reserve(V.size() + O.V.size());
    auto A = V.cbegin();
    auto B = O.V.cbegin();
    while (A != V.cend() || B != O.V.cend()) {
      if (B == O.V.cend() || (A != V.cend() && A->first < B->first))
        M.push_back(*A++);
      else if (A == V.cend() || B->first < A->first)
        M.push_back(*B++);
      else
        M.push_back({A->first, (A++)->second + (B++)->second});
    }
    V = std::move(M);
  }
  /// Adds Keys (sorted, distinct) with their Vals: a key already here
  /// gets Combine(its value, the new one).
  template <typename Fn>
  void addSorted(llvm::ArrayRef<Key> Keys, llvm::ArrayRef<Value> Vals,
                 Fn Combine) {
    if (V.empty()) {
      V.reserve(Keys.size());
      for (size_t K = 0; K < Keys.size(); ++K)
        V.push_back({Keys[K], Vals[K]});
      return;
    }
    std::vector<Entry> M;
    M.reserve(V.size() + Keys.size());
    size_t A = 0, B = 0;
    while (A < V.size() || B < Keys.size()) {
      if (B == Keys.size() || (A < V.size() && V[A].first < Keys[B]))
        M.push_back(V[A++]);
      else if (A == V.size() || Keys[B] < V[A].first)
        M.push_back({Keys[B], Vals[B]}), ++B;
      else
        M.push_back({Keys[B], Combine(V[A++].second, Vals[B])}), ++B;
    }
    V = std::move(M);
  }
  typename std::vector<Entry>::const_iterator begin() const {
    return V.begin();
  }
  typename std::vector<Entry>::const_iterator end() const { return V.end(); }
  bool empty() const { return V.empty(); }
  size_t size() const { return V.size(); }
  void clear() { V = {}; }

private:
  /// The first of Entries (V, const or not) not below K.
  template <typename T> static auto lowerBound(T &Entries, const Key &K) {
    return llvm::lower_bound(
        Entries, K, [](const Entry &E, const Key &X) { return E.first < X; });
  }
  std::vector<Entry> V;
};

using LocationCounts = SortedMap<llvm::sampleprof::LineLocation, uint64_t>;
/// Calls by (call site, callee name).
using CallCounts =
    SortedMap<std::pair<llvm::sampleprof::LineLocation, llvm::StringRef>,
              uint64_t>;

/// Flat CS profiles under construction, keyed by (context frames, inline
/// suffix), both interned.
class FlatProfiles {
public:
  struct Node {
    LocationCounts Body;
    CallCounts Calls;
    uint64_t Head = 0, Total = 0;
    /// The suffix that named this node's code before splitInlineFrames(),
    /// where that code was an inlined copy (its own code's size is the
    /// copy's); ~0u otherwise.
    uint32_t Instance = ~0u;
    /// The function was inlined here in the profiled binary: the node was
    /// an inline frame of a suffix before splitInlineFrames().
    bool wasInlined() const { return Instance != ~0u; }
    /// Adds O's counts to this node's.
    void add(const Node &O) {
      Body.add(O.Body);
      Calls.add(O.Calls);
      Head += O.Head;
      Total += O.Total;
      if (Instance == ~0u)
        Instance = O.Instance;
    }
  };
  /// Bases: the frames of each base made before splitInlineFrames() (one
  /// made after it is known by its chain, see baseAt()).
  FrameTable Bases, Suffixes;
  Node &at(uint32_t Base, uint32_t Suffix) {
    auto [It, New] =
        Nodes.try_emplace((uint64_t(Base) << 32) | Suffix, uint32_t(Store.size()));
    if (New)
      Store.emplace_back();
    return Store[It->second];
  }
  /// The count above which body samples hold 99% of all: LLVM's hot count
  /// (ProfileSummaryBuilder's 990000 cutoff), in executions.
  uint64_t hotCount() const {
    std::vector<uint64_t> C;
    uint64_t Sum = 0;
    for (const auto &KV : Nodes)
      for (const auto &LC : Store[KV.second].Body)
        if (LC.second) {
          C.push_back(LC.second);
          Sum += LC.second;
        }
    llvm::sort(C, std::greater<uint64_t>());
    uint64_t Acc = 0;
    for (uint64_t V : C) {
      Acc += V;
      if (Acc >= Sum / 100 * 99)
        return V;
    }
    return C.empty() ? 0 : C.back();
  }
  /// The body-sample count at each of Cutoffs (fractions of all body
  /// samples, ascending): the smallest count among the hottest samples
  /// that together reach that fraction, as LLVM's ProfileSummaryBuilder
  /// finds its hot (0.99) and cold (0.999999) counts.
  /// The counts are context-less: a function's line adds up over all its
  /// contexts first, as LLVM's SampleProfileSummaryBuilder flattens a
  /// context-sensitive profile before its summary (so that splitting by
  /// context does not lower the thresholds).
  std::vector<uint64_t> countsAtCutoffs(llvm::ArrayRef<double> Cutoffs) const {
    // By (suffix, line offset, discriminator); only the counts are used,
    // so a hash table does (a std::map of them was 4% of sqlite's CSSPGO).
    llvm::DenseMap<std::pair<uint32_t, uint64_t>, uint64_t> ContextLess;
    for (const auto &[Key, Id] : Nodes)
      for (const auto &[L, Count] : Store[Id].Body)
        ContextLess[{uint32_t(Key),
                     (uint64_t(L.LineOffset) << 32) | L.Discriminator}] +=
            Count;
    std::vector<uint64_t> C;
    uint64_t Sum = 0;
    for (const auto &[Unused, Count] : ContextLess)
      if (Count) {
        C.push_back(Count);
        Sum += Count;
      }
    llvm::sort(C, std::greater<uint64_t>());
    std::vector<uint64_t> Out;
    uint64_t Acc = 0;
    size_t I = 0;
    for (double F : Cutoffs) {
      double Need = F * double(Sum);
      while (I < C.size() && double(Acc) < Need)
        Acc += C[I++];
      Out.push_back(I ? C[I - 1] : (C.empty() ? 0 : C.front()));
    }
    return Out;
  }
  /// The counts the budget pre-inliner's hotness runs between: at LLVM's
  /// ProfileSummaryBuilder cutoffs of 10 % (hot end) and 99.9999 % (the
  /// cold count), in that order.
  std::vector<uint64_t> hotnessCutoffs() const {
    return countsAtCutoffs({0.1, 0.999999});
  }
  /// Calls Fn(Base, Suffix, Node) for every node, in no fixed order.
  template <class Fn> void forEachNode(Fn F) const {
    for (const auto &[Key, Id] : Nodes)
      F(uint32_t(Key >> 32), uint32_t(Key), Store[Id]);
  }
  /// Interns the frames of a context given as call-site groups (one per
  /// call in its chain, outermost first, each that site's inline frames)
  /// and remembers the groups, for pruning. After splitInlineFrames(),
  /// each frame is a group.
  uint32_t base(llvm::ArrayRef<llvm::sampleprof::SampleContextFrameVector> Groups) {
    uint32_t P = ChainRoot;
    for (const llvm::sampleprof::SampleContextFrameVector &G : Groups) {
      if (!Split) {
        P = extend(P, G);
        continue;
      }
      for (const llvm::sampleprof::SampleContextFrame &F : G)
        P = extend(P, {F});
    }
    return baseAt(P);
  }
  /// Chains of call-site groups as a trie, so that a chain's prefixes are
  /// met one group at a time: the root (no group), and the chain of P
  /// followed by Group. base() of every prefix of a chain, made each time
  /// from its groups, built and hashed a vector of up to the chain's depth
  /// per prefix; after splitInlineFrames() a chain has a group per inline
  /// frame, and on sqlite's CSSPGO that was 60% of the run (bench/scale).
  static constexpr uint32_t ChainRoot = 0;
  uint32_t extend(uint32_t P,
                  const llvm::sampleprof::SampleContextFrameVector &Group) {
    assert((!Split || Group.size() == 1) &&
           "after the split, each frame is a group");
    return extendBy(P, ChainGroups.intern(Group));
  }
  /// extend() by an interned group: G, a ChainGroups id.
  uint32_t extendBy(uint32_t P, uint32_t G) {
    auto [It, New] = ChainChild.try_emplace((uint64_t(P) << 32) | G,
                                            uint32_t(ChainParent.size()));
    if (New) {
      ChainParent.push_back(P);
      ChainGroup.push_back(G);
      ChainBase.push_back(~0u);
      ChainDepth.push_back(ChainDepth[P] + 1);
    }
    return It->second;
  }
  /// The base of trie node P: its chain's frames interned (the first time
  /// it is asked for); the first chain that makes a base is its groups.
  uint32_t baseAt(uint32_t P) {
    if (ChainBase[P] != ~0u)
      return ChainBase[P];
    // After splitInlineFrames() every base has a chain of one frame per
    // group (and every chain is so), and such a chain is the only one of
    // its frames: one without a base has frames no base has. It gets the
    // next id without its frames being built and interned (emit() builds
    // them); interning them was a tenth of sqlite's CSSPGO run.
    if (Split) {
      uint32_t Id = uint32_t(BaseChain.size());
      BaseChain.push_back(P);
      ChainBase[P] = Id;
      return Id;
    }
    // Sized first: appended group by group, a chain's frames grew their
    // vector about twice each (a third of sqlite's CSSPGO allocations).
    size_t N = 0;
    forEachChainGroup(P, [&](const llvm::sampleprof::SampleContextFrameVector &G) {
      N += G.size();
    });
    llvm::sampleprof::SampleContextFrameVector V;
    V.reserve(N);
    forEachChainGroup(P, [&](const llvm::sampleprof::SampleContextFrameVector &G) {
      V.append(G.begin(), G.end());
    });
    uint32_t Id = Bases.intern(V);
    if (Id >= BaseChain.size())
      BaseChain.resize(Id + 1, ChainRoot);
    if (BaseChain[Id] == ChainRoot)
      BaseChain[Id] = P;
    ChainBase[P] = Id;
    return Id;
  }
  /// Calls Fn on each group of trie node P's chain, outermost first, in
  /// place (chainGroups() copies them: copying every group of every chain
  /// for baseAt() and the split was 1.3% of sqlite's CSSPGO samples).
  template <typename Fn> void forEachChainGroup(uint32_t P, Fn F) const {
    llvm::SmallVector<uint32_t, 16> Path;
    chainGroupIds(P, Path);
    for (uint32_t G : llvm::reverse(Path))
      F(ChainGroups.get(G));
  }
  /// The ChainGroups ids of trie node P's chain, innermost first.
  void chainGroupIds(uint32_t P, llvm::SmallVectorImpl<uint32_t> &Ids) const {
    for (uint32_t N = P; N != ChainRoot; N = ChainParent[N])
      Ids.push_back(ChainGroup[N]);
  }
  /// The groups of trie node P's chain, outermost first.
  std::vector<llvm::sampleprof::SampleContextFrameVector>
  chainGroups(uint32_t P) const {
    std::vector<llvm::sampleprof::SampleContextFrameVector> Groups;
    forEachChainGroup(P, [&](const llvm::sampleprof::SampleContextFrameVector &G) {
      Groups.push_back(G);
    });
    return Groups;
  }
  /// The number of call-site groups of Base's chain.
  size_t depthOf(uint32_t Base) const { return ChainDepth[chainOf(Base)]; }
  /// The trie node of Base's call-site groups (groupsOf(Base)).
  uint32_t chainOf(uint32_t Base) const {
    return Base < BaseChain.size() ? BaseChain[Base] : ChainRoot;
  }
  /// Trie node T's parent, and its last group.
  uint32_t chainParent(uint32_t T) const { return ChainParent[T]; }
  const llvm::sampleprof::SampleContextFrameVector &chainGroup(uint32_t T) const {
    return ChainGroups.get(ChainGroup[T]);
  }
  /// The id of trie node T's last group (chainGroup(T)'s, in a table of
  /// groups: the same frames, the same id).
  uint32_t chainGroupId(uint32_t T) const { return ChainGroup[T]; }
  size_t chainNodes() const { return ChainParent.size(); }
  /// The suffix of function Name called from a context: its own node
  /// (the name at location 0, no inline frames), interned once per name.
  /// The frame keeps Name's characters, not a copy: they must live as
  /// long as the profiles (a symbol's or probe descriptor's name).
  uint32_t leafOf(llvm::StringRef Name) {
    auto [It, New] = LeafIds.try_emplace(Name);
    if (New) {
      llvm::sampleprof::SampleContextFrameVector L{
          llvm::sampleprof::SampleContextFrame(
              llvm::sampleprof::FunctionId(Name),
              llvm::sampleprof::LineLocation(0, 0))};
      It->second = Suffixes.intern(L);
    }
    return It->second;
  }
  /// leafOf() the outermost function of suffix S, or of chain group G (a
  /// chainGroupId()): looked up by name once per suffix or group (a
  /// lookup by name per node was a tenth of the pre-inliner's trie).
  uint32_t leafOfSuffix(uint32_t S) {
    return leafOfFirst(SuffixLeaf, S, Suffixes);
  }
  uint32_t leafOfGroup(uint32_t G) {
    return leafOfFirst(GroupLeaf, G, ChainGroups);
  }
  /// Keep(Base, Leaf) decides whether the call context of function Leaf
  /// (a Suffixes id) called under Base stays a context. Where a call in a
  /// node's chain is rejected, the node's context restarts after it: its
  /// profile moves to the context made of the call sites below that call
  /// (none: the function's base profile), adding up there. Returns how many
  /// call contexts were rejected.
  uint64_t prune(llvm::function_ref<bool(uint32_t Base, uint32_t Leaf)> Keep) {
    llvm::DenseMap<uint64_t, bool> Decided;
    uint64_t Rejected = 0;
    auto keep = [&](uint32_t Base, uint32_t Leaf) {
      auto [D, New] = Decided.try_emplace((uint64_t(Base) << 32) | Leaf);
      if (New) {
        D->second = Keep(Base, Leaf);
        Rejected += !D->second;
      }
      return D->second;
    };
    // Per (base, cut), the base without the cut groups: asked once per
    // node, interned once each (sqlite's CSSPGO has 70k nodes over a few
    // thousand of them).
    llvm::DenseMap<uint64_t, uint32_t> CutBases;
    // Boundary K is the call made at group K; its callee is the outermost
    // function of the next group, or, for the last boundary, of the node's
    // suffix. The boundaries inside a base's chain are the same for every
    // node under it, and those of a chain's prefix are the prefix's own:
    // decided once per node of the chain trie (groups before the returned
    // index are dropped). Per base, walking its chain again was a sixth of
    // sqlite's CSSPGO once every inline frame was a group.
    std::vector<uint32_t> CutAt(ChainParent.size(), ~0u);
    std::vector<uint32_t> Path;
    auto innerCut = [&](uint32_t Base) -> size_t {
      if (CutAt.size() < ChainParent.size())
        CutAt.resize(ChainParent.size(), ~0u); // base() below grows the trie
      Path.clear();
      uint32_t T = chainOf(Base);
      for (; T != ChainRoot && CutAt[T] == ~0u; T = ChainParent[T])
        Path.push_back(T);
      for (auto It = Path.rbegin(); It != Path.rend(); ++It) {
        uint32_t N = *It, P = ChainParent[N];
        // The call made at P's last group, into N's last group's function.
        CutAt[N] =
            P == ChainRoot ? 0
            : keep(baseAt(P), leafOfGroup(ChainGroup[N]))
                ? CutAt[P]
                : ChainDepth[P];
      }
      uint32_t C = chainOf(Base);
      return C == ChainRoot ? 0 : CutAt[C];
    };
    llvm::DenseMap<uint64_t, uint32_t> Out(Nodes.size());
    // The nodes that land where another did, added up once the loop is
    // done: Keep reads the nodes by their old keys meanwhile, and a node
    // that others are added to is also the one under its old key.
    std::vector<std::pair<uint32_t, uint32_t>> Adds; // (into, from)
    for (const auto &[Key, Id] : Nodes) {
      uint32_t Base = uint32_t(Key >> 32), Suffix = uint32_t(Key);
      size_t Groups = depthOf(Base);
      size_t Cut = innerCut(Base);
      // The last boundary's prefix is the whole chain: Base itself.
      if (Groups &&
          !keep(Base, leafOfSuffix(Suffix)))
        Cut = Groups;
      uint32_t NewBase = Base;
      if (Cut) {
        auto [B, NewCut] = CutBases.try_emplace((uint64_t(Base) << 32) | Cut);
        if (NewCut) {
          // base() of the groups after the first Cut, made from their ids
          // (groupsOf() copied the groups and base() hashed each again:
          // 5% of sqlite's CSSPGO instructions).
          llvm::SmallVector<uint32_t, 16> Ids;
          chainGroupIds(chainOf(Base), Ids);
          uint32_t P = ChainRoot;
          for (size_t K = Ids.size() - Cut; K-- > 0;)
            P = extendBy(P, Ids[K]);
          B->second = baseAt(P);
        }
        NewBase = B->second;
      }
      // The first node at its place (most are) stays where it is, under
      // its new key.
      auto [It, New] = Out.try_emplace((uint64_t(NewBase) << 32) | Suffix, Id);
      if (!New)
        Adds.push_back({It->second, Id});
    }
    for (auto [Into, From] : Adds)
      merge(Into, From);
    Nodes = std::move(Out);
    return Rejected;
  }
  /// Makes every inline frame a boundary that prune() decides, as it does
  /// a call: each base's call-site groups split into one group per frame,
  /// and a node whose suffix has inline frames moves to the base extended
  /// by those frames, one group each, with its innermost function alone as
  /// its suffix (Instance set). The profiles' frames stay the same; nodes
  /// that land on the same key (an inline and a call at one location of
  /// one context, to one function) add up.
  void splitInlineFrames() {
    oneFrameChains();
    llvm::DenseMap<uint64_t, uint32_t> Out;
    for (const auto &[Key, Id] : Nodes) {
      uint64_t To = Key;
      uint32_t Suffix = uint32_t(Key);
      if (Suffixes.get(Suffix).size() > 1) {
        // The base's chain is extended by the suffix's inline frames, one
        // group each. (leafOf() may grow the table S is in: its keys stay
        // where they are, FrameTable::get.)
        const llvm::sampleprof::SampleContextFrameVector &S =
            Suffixes.get(Suffix);
        uint32_t P = chainOf(uint32_t(Key >> 32));
        for (size_t K = 0; K + 1 < S.size(); ++K)
          P = extend(P, {S[K]});
        To = (uint64_t(baseAt(P)) << 32) | leafOf(S.back().Func.stringRef());
        Store[Id].Instance = Suffix;
      }
      // Nodes already placed are never visited again: adding now is what
      // adding after the loop would give.
      auto [It, New] = Out.try_emplace(To, Id);
      if (!New)
        merge(It->second, Id);
    }
    Nodes = std::move(Out);
  }
  /// Makes every base's chain one of a group per frame (the first half of
  /// splitInlineFrames(); nodes stay where they are). From then on each
  /// frame is a group (extend(), base()), and a chain is the only one of
  /// its frames (baseAt()). Done once; later calls do nothing.
  void oneFrameChains() {
    if (Split)
      return;
    // Per group id: its frames' ids as groups of one frame, interned the
    // first time the group is met (in the order a frame-by-frame walk
    // interns them), so that each chain is re-walked by ids (interning
    // every frame of every chain was a sixth of sqlite's CSSPGO run).
    std::vector<llvm::SmallVector<uint32_t, 2>> OneFrameIds;
    std::vector<bool> Known;
    llvm::SmallVector<uint32_t, 16> Path;
    for (size_t Id = 0; Id < BaseChain.size(); ++Id) {
      if (BaseChain[Id] == ChainRoot)
        continue;
      uint32_t P = ChainRoot;
      Path.clear();
      chainGroupIds(BaseChain[Id], Path);
      for (uint32_t G : llvm::reverse(Path)) {
        if (G >= Known.size()) {
          Known.resize(G + 1);
          OneFrameIds.resize(G + 1);
        }
        if (!Known[G]) {
          // intern() may grow the table G is in: its keys stay where
          // they are (FrameTable::get).
          const llvm::sampleprof::SampleContextFrameVector &V =
              ChainGroups.get(G);
          llvm::SmallVector<uint32_t, 2> Ids;
          for (const llvm::sampleprof::SampleContextFrame &F : V)
            Ids.push_back(ChainGroups.intern({F}));
          Known[G] = true;
          OneFrameIds[G] = std::move(Ids);
        }
        for (uint32_t One : OneFrameIds[G])
          P = extendBy(P, One);
      }
      // The same frames: the same base, now reached one frame at a time.
      BaseChain[Id] = P;
      if (ChainBase[P] == ~0u)
        ChainBase[P] = uint32_t(Id);
    }
    Split = true;
    InternedBases = uint32_t(BaseChain.size());
  }
  /// The frames of Base, outermost first.
  llvm::sampleprof::SampleContextFrameVector framesOf(uint32_t Base) const {
    if (Base < InternedBases)
      return Bases.get(Base);
    llvm::sampleprof::SampleContextFrameVector V;
    forEachChainGroup(BaseChain[Base],
                      [&](const llvm::sampleprof::SampleContextFrameVector &G) {
                        V.append(G.begin(), G.end());
                      });
    return V;
  }
  /// The call-site groups base() was first given for Base (after
  /// splitInlineFrames(), a group per frame; none if unknown).
  std::vector<llvm::sampleprof::SampleContextFrameVector> groupsOf(uint32_t Base) const {
    return chainGroups(chainOf(Base));
  }
  /// Frees every node (their counts were taken).
  void clearNodes() {
    Nodes = llvm::DenseMap<uint64_t, uint32_t>();
    Store = std::deque<Node>();
  }
  /// The node of (Base, Suffix), if any.
  const Node *find(uint32_t Base, uint32_t Suffix) const {
    auto It = Nodes.find((uint64_t(Base) << 32) | Suffix);
    return It == Nodes.end() ? nullptr : &Store[It->second];
  }
private:
  uint32_t leafOfFirst(std::vector<uint32_t> &Memo, uint32_t Id,
                       const FrameTable &T) {
    if (Id >= Memo.size())
      Memo.resize(Id + 1, ~0u);
    if (Memo[Id] == ~0u)
      Memo[Id] = leafOf(T.get(Id).front().Func.stringRef());
    return Memo[Id];
  }
  /// Adds node From to node Into, and frees From's counts (it is no
  /// longer any key's).
  void merge(uint32_t Into, uint32_t From) {
    Store[Into].add(Store[From]);
    Store[From].Body.clear();
    Store[From].Calls.clear();
  }
  /// The nodes by (base, suffix) key: their places in Store. Nodes kept in
  /// the map itself (80-byte buckets) were moved at every growth, and the
  /// split and the prune each built a second map of them while the first
  /// was alive: the node maps were a third of re2's CSSPGO page faults
  /// (bench/pgo). The split and the prune now only re-key the places; a
  /// node added to another stays in Store, empty. The map is filled and
  /// rebuilt by the same insertions as before, so it is walked in the same
  /// order.
  llvm::DenseMap<uint64_t, uint32_t> Nodes;
  std::deque<Node> Store;
  llvm::StringMap<uint32_t> LeafIds;
  /// leafOfSuffix() and leafOfGroup() by id (~0u: not asked yet).
  std::vector<uint32_t> SuffixLeaf, GroupLeaf;
  /// The chain trie (extend()): per node its parent, its last group (a
  /// ChainGroups id) and its base once asked for (~0u before); the node of
  /// a (parent, group) pair.
  FrameTable ChainGroups;
  std::vector<uint32_t> ChainParent{ChainRoot}, ChainGroup{0}, ChainBase{~0u},
      ChainDepth{0};
  /// splitInlineFrames() has run; the bases made before it (interned in
  /// Bases; those made after it are not, see baseAt()).
  bool Split = false;
  uint32_t InternedBases = ~0u;
  llvm::DenseMap<uint64_t, uint32_t> ChainChild;
  /// Per base id: the trie node of the first chain that made it (its
  /// groups; the root for none).
  std::vector<uint32_t> BaseChain;
};

} // namespace lbr2prof

#endif
