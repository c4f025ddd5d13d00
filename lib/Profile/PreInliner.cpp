//===- PreInliner.cpp - the growth-budget pre-inliner ---------------------===//
//
// The flat profiles' call contexts are put in a trie: a root per function
// (its base profile), below it the calls it makes (call site, callee),
// below those the calls the callee makes in that context, and so on. Each
// trie node stands for the flat (prefix, callee) pairs that prune() asks
// about. Functions are then taken from the top of the call graph down, as
// a compiler's bottom-up inliner would see the result: each one keeps its
// hottest call contexts first, while
//   - the call is above the cold count and the callee is small enough for
//     the call's hotness: under CalleeSizeLimit x 100 x h + 1 bytes, where
//     h is the call count between the profile's cold count (0) and its 10%
//     cutoff count (1), the two counts LLVM's ProfileSummaryInfo and
//     llvm-profgen 19's CSPreInliner use (llvm-profgen's scale is 1500);
//   - the call is made at least MinCallShare % as often as the context it
//     is made from is entered (LLVM's inliner calls a call site cold under
//     2 % of its caller's entry frequency): for a kept context, the calls
//     into it; for a function's base profile, its calls from no known
//     context plus the contexts moved to it so far;
//   - and the code kept so far (the function's own size plus its kept
//     callees') is under its budget: GrowthFactor x its size, within
//     [MinBudget, MaxBudget] (llvm-profgen: 12x, 100 and 50000 bytes).
// A kept context offers its own calls as candidates to the same function.
// A context not kept moves, with everything below it, to its callee's
// root, where it adds up with the callee's other contexts before the
// callee's turn comes (a callee whose turn is over, in a recursion, keeps
// none of them).
//
// Chosen on bench/pgo's tuning half (jq, re2; recording 1 of each; CSSPGO,
// callgrind estimate, share of instrumented PGO's gain):
//   scale / share / growth   1500/0/12  1500/2/12  1500/2/4  150/2/12
//   jq                          129        129        125       121
//   re2                          57         57         57        94
//   scale / share / growth     40/2/12   150/10/12  size rule (75 bytes)
//   jq                          121        122        109
//   re2                          79         94         75
// (150/10 is half a point ahead of 150/2 on the mean, within what one
// recording can tell; 2 % is LLVM's own cold call-site share, so it stays.)
// Held-out figures: bench/pgo/README.md.
//
// Decisions never depend on the order of ids or threads: candidates of
// equal count are ordered by call site and callee, functions by name.
//
//===----------------------------------------------------------------------===//
#include "PreInliner.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include <algorithm>
#include <cassert>
#include <set>
#include <tuple>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {
namespace {

/// A call context: a call (site group in the caller, callee) below its
/// caller's context; a root is a function's base profile.
struct CallNode {
  StringRef Func; ///< the callee (a root: the function)
  uint64_t Count = 0;
  /// The callee was inlined at this call site in the profiled binary.
  bool WasInlined = false;
  /// Bytes of the callee's own code: its inlined copy's here, if known.
  uint64_t Size = 0;
  /// Some of the callee's code ran in this context.
  bool Ran = false;
  /// By (call-site group, callee), in key order (a sorted vector: 32
  /// bytes a child instead of a std::map's 80-byte tree node; bench/pgo's
  /// sqlite contexts on lines 122 -> 116 MB, re2's CSSPGO 54 -> 52 MB).
  SortedMap<std::pair<uint32_t, StringRef>, uint32_t> Children;
  /// The flat (prefix base << 32 | callee leaf) pairs decided here (most
  /// nodes have one: kept in place, not a heap block per node).
  SmallVector<uint64_t, 1> Keys;
};

class BudgetPreInliner {
public:
  BudgetPreInliner(FlatProfiles &Flat, const StringMap<uint64_t> &Size,
                   const DenseMap<uint32_t, uint64_t> &CopySize,
                   const ContextProfileOptions &Opts, uint64_t Cold,
                   uint64_t Upper)
      : Flat(Flat), Size(Size), CopySize(CopySize), Opts(Opts), Cold(Cold),
        Upper(Upper) {}

  /// Builds the trie and decides every call context: whether each flat
  /// (prefix base << 32 | callee leaf) pair stays a context.
  DenseMap<uint64_t, bool> run() {
    build();
    for (StringRef F : topDownOrder())
      process(F);
    return std::move(Decided);
  }

private:
  uint32_t newNode(StringRef Func, std::pair<uint32_t, StringRef> Site) {
    Nodes.emplace_back();
    Nodes.back().Func = Func;
    SiteOf.push_back(Site);
    CallerCalls.push_back(0);
    return uint32_t(Nodes.size() - 1);
  }
  uint32_t root(StringRef F) {
    auto [It, New] = Roots.try_emplace(F, uint32_t(Nodes.size()));
    if (New)
      newNode(F, {~0u, F});
    return It->second;
  }
  uint32_t child(uint32_t Parent, uint32_t Group, StringRef Callee) {
    auto [It, New] =
        Nodes[Parent].Children.try_emplace({Group, Callee}, Nodes.size());
    uint32_t Id = It->second;
    if (New)
      newNode(Callee, {Group, Callee});
    return Id;
  }
  void build();
  std::vector<StringRef> topDownOrder() const;
  void process(StringRef F);
  /// Caller: the calls into the context the call is made from.
  bool worthKeeping(const CallNode &N, uint64_t Caller) const;
  void decide(uint32_t N, bool Keep) {
    for (uint64_t K : Nodes[N].Keys)
      Decided[K] = Keep;
  }
  void reject(uint32_t N);
  /// Makes N a candidate of the function whose turn it is; Caller: the
  /// calls into the context that makes N's call.
  void offer(uint32_t N, uint64_t Caller);
  void moveUnder(uint32_t Parent, std::pair<uint32_t, StringRef> Key,
                 uint32_t N);
  /// Candidate order: more calls first, then by call site and callee.
  bool before(uint32_t A, uint32_t B) const;
  /// InlinedCode::Cold: code inlined in the binary stays as it was (its
  /// bytes are in the function's already) unless it is entered at most the
  /// cold count and yet ran (a copy that never ran in a context is left
  /// where the compiler put it: moved out, it would only be a cold call).
  bool replayed(const CallNode &N) const {
    return N.WasInlined && (N.Count > Cold || !N.Ran) &&
           Opts.Inlined == ContextProfileOptions::InlinedCode::Cold;
  }
  /// Keeps N, replayed, and hands each of its children to Next.
  template <class Fn> void keepAsInlined(uint32_t N, Fn Next) {
    decide(N, true);
    auto Children = std::move(Nodes[N].Children);
    Nodes[N].Children.clear();
    for (const auto &[Key, C] : Children)
      Next(C);
  }
  /// N's caller's turn is over: N moves out, unless it stays as inlined
  /// code, and so on below it.
  void settle(uint32_t N);
  uint64_t sizeOf(const CallNode &N) const {
    return N.Size ? N.Size : Size.lookup(N.Func);
  }

  FlatProfiles &Flat;
  const StringMap<uint64_t> &Size;
  const DenseMap<uint32_t, uint64_t> &CopySize;
  const ContextProfileOptions &Opts;
  uint64_t Cold, Upper;
  std::vector<CallNode> Nodes;
  /// The call-site key of each node under its parent (roots: none).
  std::vector<std::pair<uint32_t, StringRef>> SiteOf;
  StringMap<uint32_t> Roots;
  /// Functions whose turn is over, or under way.
  StringSet<> Done;
  /// The root whose turn it is, and its candidates (a heap, best first).
  uint32_t Current = ~0u;
  std::vector<uint32_t> Queue;
  FrameTable Groups;
  DenseMap<uint64_t, bool> Decided;
  /// Per node: the calls into the context its call is made from, when it
  /// was offered.
  std::vector<uint64_t> CallerCalls;
  /// Per function: the calls into its outlined copy, as far as known: its
  /// calls from no known context, plus every call context that moved to
  /// its base profile so far.
  StringMap<uint64_t> Entry;
};

/// The calls into a context: its head samples (calls seen in branch
/// stacks) if any; else the count at its first site, as clang's
/// FunctionSamples::getHeadSamplesEstimate takes it. FirstSite reads that
/// site even when it holds an explicit 0, as clang and llvm-profgen 19 do
/// on a probe profile (llvm-profgen writes every probe of a function that
/// ran, with 0 for those that did not, before its pre-inliner runs; probe
/// 1 is the entry block). FirstCounted skips zeros, as llvm-profgen does
/// in effect on a line profile, where it writes no zero lines. Either way
/// 1 if the context has any sample at all. The driver's default for each
/// kind is llvm-profgen's reading; on bench/pgo's tuning half the two tie
/// on probe profiles (ContextProfileOptions::EntryEstimate, Generate.cpp).
static uint64_t callsInto(const FlatProfiles::Node &N,
                          ContextProfileOptions::EntryKind How) {
  if (N.Head)
    return N.Head;
  uint64_t C = 0;
  if (How == ContextProfileOptions::EntryKind::FirstSite) {
    if (!N.Body.empty())
      C = N.Body.begin()->second;
  } else {
    for (const auto &[L, Count] : N.Body)
      if (Count) {
        C = Count;
        break;
      }
  }
  return C ? C : N.Total > 0;
}

void BudgetPreInliner::build() {
  std::vector<std::pair<uint32_t, uint32_t>> Work;
  Flat.forEachNode([&](uint32_t Base, uint32_t Suffix,
                       const FlatProfiles::Node &) {
    Work.push_back({Base, Suffix});
  });
  DenseSet<uint64_t> Seen;
  // A node per flat node at most, and per trie node, and the roots.
  Nodes.reserve(Work.size() + Flat.chainNodes());
  SiteOf.reserve(Nodes.capacity());
  CallerCalls.reserve(Nodes.capacity());
  // The call site of chain-trie node T (its last group) in Groups, by
  // the flat profiles' group id: interned once per group, in the order
  // they are met (interning the site of every call was 3% of sqlite's
  // CSSPGO run).
  std::vector<uint32_t> GroupIds;
  auto siteOf = [&](uint32_t T) {
    uint32_t G = Flat.chainGroupId(T);
    if (G >= GroupIds.size())
      GroupIds.resize(G + 1, ~0u);
    if (GroupIds[G] == ~0u)
      GroupIds[G] = Groups.intern(Flat.chainGroup(T));
    return GroupIds[G];
  };
  // The call made at the last group of a context (trie node T, base
  // Prefix), to Callee (leaf Leaf): a child of Parent (the call node of the
  // context's own function), keyed in the profiles by (Prefix, Leaf); its
  // counts are added the first time the key is met.
  auto call = [&](uint32_t Parent, uint32_t Prefix, uint32_t T,
                  StringRef Callee, uint32_t Leaf) {
    uint32_t Cur = child(Parent, siteOf(T), Callee);
    uint64_t Key = (uint64_t(Prefix) << 32) | Leaf;
    if (!Seen.insert(Key).second)
      return Cur;
    Nodes[Cur].Keys.push_back(Key);
    if (const FlatProfiles::Node *N = Flat.find(Prefix, Leaf)) {
      Nodes[Cur].Count += callsInto(*N, Opts.EntryEstimate);
      Nodes[Cur].WasInlined |= N->wasInlined();
      Nodes[Cur].Ran |= N->Total > 0;
      if (N->Instance != ~0u) // DenseMap's empty key
        if (auto It = CopySize.find(N->Instance); It != CopySize.end())
          Nodes[Cur].Size = std::max(Nodes[Cur].Size, It->second);
    }
    return Cur;
  };
  // Reach[T]: the call node of the function of chain-trie node T's last
  // group, in the context of the groups before it (FlatProfiles::extend).
  // Chains share their prefixes, so each trie node is walked once: walking
  // every base's chain from its root was 1.1 of sqlite's 2.2 s of CSSPGO
  // once every inline frame was a group of its own (72k bases, 722k
  // groups; 75k trie nodes).
  std::vector<uint32_t> Reach(Flat.chainNodes(), ~0u);
  std::vector<uint32_t> Path;
  auto reach = [&](uint32_t T) {
    Path.clear();
    for (; Reach[T] == ~0u; T = Flat.chainParent(T)) {
      Path.push_back(T);
      if (Flat.chainParent(T) == FlatProfiles::ChainRoot)
        break;
    }
    for (auto It = Path.rbegin(); It != Path.rend(); ++It) {
      uint32_t N = *It, P = Flat.chainParent(N);
      StringRef F = Flat.chainGroup(N).front().Func.stringRef();
      Reach[N] = P == FlatProfiles::ChainRoot
                     ? root(F)
                     : call(Reach[P], Flat.baseAt(P), P, F,
                            Flat.leafOfGroup(Flat.chainGroupId(N)));
    }
    return Reach[Path.empty() ? T : Path.front()];
  };
  for (auto [Base, Suffix] : Work) {
    if (Flat.depthOf(Base) == 0) {
      // A function's calls from no known context.
      const SampleContextFrameVector &S = Flat.Suffixes.get(Suffix);
      if (S.size() == 1)
        if (const FlatProfiles::Node *N = Flat.find(Base, Suffix))
          Entry[S.front().Func.stringRef()] += N->Head;
      continue;
    }
    uint32_t T = Flat.chainOf(Base);
    const SampleContextFrameVector &S = Flat.Suffixes.get(Suffix);
    call(reach(T), Base, T, S.front().Func.stringRef(),
         Flat.leafOfSuffix(Suffix));
  }
}

std::vector<StringRef> BudgetPreInliner::topDownOrder() const {
  // Calls between functions, from every context: caller -> callees.
  std::map<StringRef, std::set<StringRef>> Calls;
  for (const CallNode &N : Nodes) {
    std::set<StringRef> &Out = Calls[N.Func];
    for (const auto &[Key, C] : N.Children)
      Out.insert(Key.second);
  }
  // Reverse post-order of a depth-first walk, roots by name: callers
  // before callees (in a recursion, whichever the walk reaches first).
  std::vector<StringRef> Post;
  std::set<StringRef> Visited;
  for (const auto &[F, Unused] : Calls) {
    if (!Visited.insert(F).second)
      continue;
    std::vector<std::pair<StringRef, std::set<StringRef>::const_iterator>> Stack;
    Stack.push_back({F, Calls[F].begin()});
    while (!Stack.empty()) {
      auto &[Fn, It] = Stack.back();
      const std::set<StringRef> &Out = Calls.find(Fn)->second;
      if (It == Out.end()) {
        Post.push_back(Fn);
        Stack.pop_back();
        continue;
      }
      StringRef Next = *It++;
      if (Visited.insert(Next).second)
        Stack.push_back({Next, Calls[Next].begin()});
    }
  }
  std::reverse(Post.begin(), Post.end());
  return Post;
}

bool BudgetPreInliner::worthKeeping(const CallNode &N, uint64_t Caller) const {
  uint64_t Sz = sizeOf(N);
  if (!Sz || N.Count == 0 || N.Count <= Cold)
    return false;
  // A call made on a rare path of its caller: fewer calls than
  // MinCallShare % of the calls into the caller (a caller with no known
  // calls into it, such as main, has no rare paths by this rule).
  if (double(N.Count) * 100.0 < Opts.MinCallShare * double(Caller))
    return false;
  double H = double(N.Count - Cold) /
             std::max(1.0, double(Upper > Cold ? Upper - Cold : 0));
  H = std::min(H, 1.0);
  // A call the compiler inlined in the profiled binary gets a hundred
  // times the size limit (llvm-profgen 19's CSPreInliner bumps its
  // threshold as much), since the compiler saw more than bytes; the cold
  // count, the call share and the budget still apply.
  double Limit = double(Opts.CalleeSizeLimit) * 100.0 * H;
  if (N.WasInlined)
    Limit *= 100.0;
  return double(Sz) < Limit + 1.0;
}

bool BudgetPreInliner::before(uint32_t A, uint32_t B) const {
  const CallNode &X = Nodes[A], &Y = Nodes[B];
  if (X.Count != Y.Count)
    return X.Count > Y.Count;
  const SampleContextFrameVector &GX = Groups.get(SiteOf[A].first);
  const SampleContextFrameVector &GY = Groups.get(SiteOf[B].first);
  if (GX != GY)
    return std::lexicographical_compare(
        GX.begin(), GX.end(), GY.begin(), GY.end(),
        [](const SampleContextFrame &P, const SampleContextFrame &Q) {
          if (P.Func != Q.Func)
            return P.Func.stringRef() < Q.Func.stringRef();
          return P.Location < Q.Location;
        });
  return X.Func < Y.Func;
}

void BudgetPreInliner::process(StringRef F) {
  Done.insert(F);
  auto R = Roots.find(F);
  if (R == Roots.end())
    return;
  uint32_t Root = R->second;
  uint64_t Own = Size.lookup(F);
  uint64_t Budget = std::clamp<uint64_t>(Own * Opts.GrowthFactor,
                                         Opts.MinBudget, Opts.MaxBudget);
  uint64_t Final = Own;
  Current = Root;
  // The root's children are taken out of it and offered; a rejected
  // context that moves back under this root (a recursion: F's context in
  // F) is offered as it arrives.
  for (const auto &[Key, C] : Nodes[Root].Children)
    offer(C, Entry.lookup(F));
  Nodes[Root].Children.clear();
  while (!Queue.empty()) {
    std::pop_heap(Queue.begin(), Queue.end(),
                  [&](uint32_t A, uint32_t B) { return before(B, A); });
    uint32_t N = Queue.back();
    Queue.pop_back();
    if (Final < Budget && worthKeeping(Nodes[N], CallerCalls[N])) {
      decide(N, true);
      Final += sizeOf(Nodes[N]);
      for (const auto &[Key, C] : Nodes[N].Children)
        offer(C, Nodes[N].Count);
      continue;
    }
    reject(N);
  }
  Current = ~0u;
}

void BudgetPreInliner::offer(uint32_t N, uint64_t Caller) {
  // Code inlined in the binary that stays is no candidate: as when it is
  // kept whole (InlinedCode::Keep), its calls are its caller's, made from
  // the same context.
  if (replayed(Nodes[N])) {
    keepAsInlined(N, [&](uint32_t C) { offer(C, Caller); });
    return;
  }
  CallerCalls[N] = Caller;
  Queue.push_back(N);
  std::push_heap(Queue.begin(), Queue.end(),
                 [&](uint32_t A, uint32_t B) { return before(B, A); });
}

void BudgetPreInliner::reject(uint32_t N) {
  decide(N, false);
  Entry[Nodes[N].Func] += Nodes[N].Count;
  uint32_t To = root(Nodes[N].Func);
  auto Children = std::move(Nodes[N].Children);
  Nodes[N].Children.clear();
  for (const auto &[Key, C] : Children)
    moveUnder(To, Key, C);
}

void BudgetPreInliner::settle(uint32_t N) {
  if (replayed(Nodes[N]))
    keepAsInlined(N, [&](uint32_t C) { settle(C); });
  else
    reject(N);
}

void BudgetPreInliner::moveUnder(uint32_t Parent,
                                 std::pair<uint32_t, StringRef> Key,
                                 uint32_t N) {
  if (Parent == Current) {
    offer(N, Entry.lookup(Nodes[Current].Func));
    return;
  }
  // Under a root whose turn is over, nothing is kept any more (but code
  // inlined in the binary that stays as it was).
  if (Roots.lookup(Nodes[Parent].Func) == Parent &&
      Done.contains(Nodes[Parent].Func)) {
    settle(N);
    return;
  }
  auto [It, New] = Nodes[Parent].Children.try_emplace(Key, N);
  if (New)
    return;
  uint32_t Into = It->second;
  Nodes[Into].Count += Nodes[N].Count;
  Nodes[Into].WasInlined |= Nodes[N].WasInlined;
  Nodes[Into].Ran |= Nodes[N].Ran;
  Nodes[Into].Size = std::max(Nodes[Into].Size, Nodes[N].Size);
  Nodes[Into].Keys.insert(Nodes[Into].Keys.end(), Nodes[N].Keys.begin(),
                          Nodes[N].Keys.end());
  auto Children = std::move(Nodes[N].Children);
  Nodes[N].Children.clear();
  for (const auto &[K, C] : Children)
    moveUnder(Into, K, C);
}

} // namespace

void inferInlinedCalls(FlatProfiles &Flat,
                       ContextProfileOptions::EntryKind How) {
  std::vector<std::pair<size_t, uint64_t>> Work; // (depth, node key)
  Flat.forEachNode([&](uint32_t Base, uint32_t Suffix,
                       const FlatProfiles::Node &N) {
    if (N.wasInlined() && !N.Head && Flat.depthOf(Base) > 0)
      Work.push_back({Flat.depthOf(Base), (uint64_t(Base) << 32) | Suffix});
  });
  // Deepest first: a caller's estimate reads the counts its inlined
  // callees gave it (llvm-profgen walks its context trie in post-order).
  llvm::sort(Work, std::greater<>());
  // A caller is one level up (its chain is the callee's without the last
  // group), so a level's calls are added to their callers' sorted sites
  // together, one merge per caller, before the level above reads them:
  // added one by one, mostly in the middle of a large caller's sites,
  // they were 45M of the 118M instructions here on bench/pgo's sqlite
  // (CSSPGO, recording 1).
  struct Added {
    FlatProfiles::Node *Caller;
    LineLocation Site;
    StringRef Callee;
    uint64_t Calls;
  };
  std::vector<Added> Level;
  auto addLevel = [&] {
    llvm::sort(Level, [](const Added &A, const Added &B) {
      return std::tie(A.Caller, A.Site, A.Callee) <
             std::tie(B.Caller, B.Site, B.Callee);
    });
    LocationCounts Body;
    CallCounts Calls;
    for (size_t I = 0; I < Level.size();) {
      FlatProfiles::Node *Caller = Level[I].Caller;
      Body.clear();
      Calls.clear();
      for (; I < Level.size() && Level[I].Caller == Caller; ++I) {
        Body[Level[I].Site] += Level[I].Calls;
        Calls[{Level[I].Site, Level[I].Callee}] += Level[I].Calls;
      }
      Caller->Body.add(Body);
      Caller->Calls.add(Calls);
    }
    Level.clear();
  };
  size_t Depth = Work.empty() ? 0 : Work.front().first;
  for (auto [D, Key] : Work) {
    if (D != Depth) {
      addLevel();
      Depth = D;
    }
    uint32_t Base = uint32_t(Key >> 32), Suffix = uint32_t(Key);
    uint64_t Calls = callsInto(*Flat.find(Base, Suffix), How);
    StringRef Callee = Flat.Suffixes.get(Suffix).front().Func.stringRef();
    // The inline site: the chain's last group; the caller, the chain
    // before it.
    uint32_t T = Flat.chainOf(Base);
    SampleContextFrame Site = Flat.chainGroup(T).front();
    uint32_t CallerBase = Flat.baseAt(Flat.chainParent(T));
    assert(Flat.depthOf(CallerBase) + 1 == D && "a caller one level up");
    FlatProfiles::Node &Caller =
        Flat.at(CallerBase, Flat.leafOfGroup(Flat.chainGroupId(T)));
    Level.push_back({&Caller, Site.Location, Callee, Calls});
    Caller.Total += Calls;
  }
  addLevel();
}

uint64_t preInlineWithBudget(FlatProfiles &Flat,
                             const StringMap<uint64_t> &Size,
                             const DenseMap<uint32_t, uint64_t> &CopySize,
                             const ContextProfileOptions &Opts,
                             ContextProfileStats &St,
                             ArrayRef<uint64_t> Cutoffs) {
  std::vector<uint64_t> C = Cutoffs.empty() ? Flat.hotnessCutoffs()
                                            : std::vector<uint64_t>(Cutoffs);
  St.HotCallCount = C[1];
  // The pre-inliner's trie is gone before the prune: with both alive,
  // sqlite's CSSPGO peaked in the prune at 88 MB (13 of them the trie);
  // 80 MB now, at the end of the pre-inliner (contexts on lines 93 -> 86).
  DenseMap<uint64_t, bool> Kept =
      BudgetPreInliner(Flat, Size, CopySize, Opts, /*Cold=*/C[1],
                       /*Upper=*/C[0])
          .run();
  return Flat.prune([&](uint32_t Base, uint32_t Leaf) {
    auto It = Kept.find((uint64_t(Base) << 32) | Leaf);
    return It != Kept.end() && It->second;
  });
}

} // namespace lbr2prof
