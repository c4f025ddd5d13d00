//===- ContextProfileBuilder.cpp - calling contexts to a CS profile -------===//
//
// Per context: a RawProfile of its own (the context's branches and ranges,
// with the whole recording's weight scale) goes through the same
// validation as the whole program (buildBinaryProfile), then every counted
// instruction is symbolized and put in the profile of its full context:
// the context's call-site frames, then its own inline frames.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/ContextProfileBuilder.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/ProfileData/ProfileCommon.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <map>

using namespace llvm;
using namespace llvm::sampleprof;

namespace lbr2prof {

//===----------------------------------------------------------------------===//
// The oracle
//===----------------------------------------------------------------------===//

/// File offset of binary address A in an executable segment, if any.
static std::optional<uint64_t> addrToFileOffset(const BinaryImage &Image,
                                                uint64_t A) {
  for (const Segment &S : Image.segments())
    if (S.Exec && A >= S.VAddr && A - S.VAddr < S.FileSize)
      return A - S.VAddr + S.Offset;
  return std::nullopt;
}

BinaryTransferOracle::BinaryTransferOracle(const BinaryImage &Image,
                                           bool IgnoreBuildId,
                                           unsigned Threads)
    : Image(Image), Threads(Threads),
      FileName(sys::path::filename(Image.path()).str()),
      BuildId(Image.buildId().begin(), Image.buildId().end()),
      IgnoreBuildId(IgnoreBuildId) {}

void BinaryTransferOracle::build() const {
  std::vector<unsigned> All(Image.functions().size());
  for (unsigned F = 0; F < All.size(); ++F)
    All[F] = F;
  Image.decodeFunctions(All, Threads);
  for (unsigned F : All)
    for (const Inst &I : Image.instructions(F)) {
      bool IsCall = I.Kind == InstKind::Call || I.Kind == InstKind::IndirectCall;
      if (!IsCall && I.Kind != InstKind::Return)
        continue;
      std::optional<uint64_t> Off = addrToFileOffset(Image, I.Addr);
      if (!Off)
        continue;
      if (IsCall) {
        CallSize[*Off] = I.Size;
        ReturnSites[*Off + I.Size] = I.Addr;
      } else {
        Returns.insert(*Off);
      }
    }
}

bool BinaryTransferOracle::isBinary(const DsoInfo &D) const {
  DsoMatch M = matchDso(D.Path, D.BuildId, FileName, BuildId);
  return M == DsoMatch::Same || (M == DsoMatch::BuildIdDiffers && IgnoreBuildId);
}

TransferOracle::Kind BinaryTransferOracle::kindAt(uint64_t Off) const {
  std::call_once(Built, [this] { build(); });
  if (CallSize.count(Off))
    return Call;
  return Returns.count(Off) ? Return : Other;
}

uint64_t BinaryTransferOracle::returnOffsetOf(uint64_t Off) const {
  std::call_once(Built, [this] { build(); });
  auto It = CallSize.find(Off);
  return It == CallSize.end() ? ~0ULL : Off + It->second;
}

bool BinaryTransferOracle::isReturnSite(uint64_t Off) const {
  std::call_once(Built, [this] { build(); });
  return ReturnSites.count(Off);
}

std::optional<uint64_t> BinaryTransferOracle::callBefore(uint64_t Off) const {
  std::call_once(Built, [this] { build(); });
  auto It = ReturnSites.find(Off);
  if (It == ReturnSites.end())
    return std::nullopt;
  return It->second;
}

//===----------------------------------------------------------------------===//
// The profile
//===----------------------------------------------------------------------===//

namespace {

/// One context's counts as a RawProfile (so buildBinaryProfile validates
/// them as it does the whole program's), on the recording's weight scale.
RawProfile contextRaw(const RawProfile &Raw) {
  RawProfile R;
  R.WeightedEntries = Raw.WeightedEntries;
  R.TotalWeight = Raw.TotalWeight;
  R.SamplesWithoutPeriod = Raw.SamplesWithoutPeriod;
  return R;
}

/// Groups the context-keyed counts by context, keeping those with an end in
/// DSO Dso.
std::map<uint32_t, RawProfile> splitByContext(const RawProfile &Raw, int Dso) {
  std::map<uint32_t, RawProfile> By;
  auto mine = [&](const ContextKey &K) {
    return locDso(K.A) == Dso || locDso(K.B) == Dso;
  };
  // Branches into RawProfile::Branches, ranges into ::Ranges.
  auto split = [&](const auto &From, auto Into) {
    for (const auto &[K, V] : From)
      if (mine(K)) {
        auto It = By.try_emplace(K.Ctx, contextRaw(Raw)).first;
        auto &C = (It->second.*Into)[{K.A, K.B}];
        C.Count += V.Count;
        C.Weight += V.Weight;
      }
  };
  split(Raw.Contexts.Branches, &RawProfile::Branches);
  split(Raw.Contexts.Ranges, &RawProfile::Ranges);
  return By;
}

/// Appends the frames of an inline stack (innermost first), outermost
/// first, each with its location; the innermost gets Leaf's location
/// instead (the call site's own, or {0,0} for a profile's leaf frame).
void appendFrames(SampleContextFrameVector &V, ArrayRef<SourceFrame> Stack,
                  bool WithInnermostLocation) {
  for (size_t K = Stack.size(); K > 0; --K) {
    const SourceFrame &F = Stack[K - 1];
    LineLocation L(F.LineOffset, F.Discriminator);
    if (K == 1 && !WithInnermostLocation)
      L = LineLocation(0, 0);
    V.emplace_back(FunctionId(F.Function), L);
  }
}

/// Frame vectors interned to ids, so a profile under construction is keyed
/// by two small numbers rather than a vector compared frame by frame.
class FrameTable {
public:
  uint32_t intern(const SampleContextFrameVector &V) {
    auto [It, New] = Ids.try_emplace(V, uint32_t(Vectors.size()));
    if (New)
      Vectors.push_back(&It->first);
    return It->second;
  }
  const SampleContextFrameVector &get(uint32_t Id) const {
    return *Vectors[Id];
  }

private:
  struct Less {
    bool operator()(const SampleContextFrameVector &A,
                    const SampleContextFrameVector &B) const {
      return std::lexicographical_compare(
          A.begin(), A.end(), B.begin(), B.end(),
          [](const SampleContextFrame &X, const SampleContextFrame &Y) {
            if (X.Func != Y.Func)
              return X.Func.stringRef() < Y.Func.stringRef();
            return X.Location < Y.Location;
          });
    }
  };
  std::map<SampleContextFrameVector, uint32_t, Less> Ids;
  std::vector<const SampleContextFrameVector *> Vectors;
};

/// What an instruction contributes, symbolized once for all contexts: the
/// inline frames above it (an interned suffix: every frame with its
/// location, the innermost function with none), its own location and
/// duplication factor, its size.
struct InstSite {
  uint32_t Suffix = ~0u; ///< ~0u: no line information
  LineLocation Loc{0, 0};
  uint32_t Dup = 1;
  uint8_t Size = 0;
};

/// Flat CS profiles under construction, keyed by (context frames, inline
/// suffix), both interned.
class FlatProfiles {
public:
  explicit FlatProfiles(ContextProfileResult &R) : R(R) {}
  struct Node {
    std::map<LineLocation, uint64_t> BodyMax;
    std::map<std::pair<LineLocation, StringRef>, uint64_t> Calls;
    uint64_t Head = 0, Total = 0;
  };
  FrameTable Bases, Suffixes;
  Node &at(uint32_t Base, uint32_t Suffix) {
    return Nodes[(uint64_t(Base) << 32) | Suffix];
  }
  /// The count above which body samples hold 99% of all: LLVM's hot count
  /// (ProfileSummaryBuilder's 990000 cutoff), in executions.
  uint64_t hotCount() const {
    std::vector<uint64_t> C;
    uint64_t Sum = 0;
    for (const auto &KV : Nodes)
      for (const auto &LC : KV.second.BodyMax)
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
  /// Interns the frames of a context given as call-site groups (one per
  /// call in its chain, outermost first, each that site's inline frames)
  /// and remembers the groups, for pruning.
  uint32_t base(ArrayRef<SampleContextFrameVector> Groups) {
    SampleContextFrameVector V;
    for (const SampleContextFrameVector &G : Groups)
      V.append(G.begin(), G.end());
    uint32_t Id = Bases.intern(V);
    if (Id >= GroupsOf.size())
      GroupsOf.resize(Id + 1);
    if (GroupsOf[Id].empty())
      GroupsOf[Id].assign(Groups.begin(), Groups.end());
    return Id;
  }
  /// Keep(Base, Leaf) decides whether the call context of function Leaf
  /// (a Suffixes id) called under Base stays a context. Where a call in a
  /// node's chain is rejected, the node's context restarts after it: its
  /// profile moves to the context made of the call sites below that call
  /// (none: the function's base profile), adding up there. Returns how many
  /// call contexts were rejected.
  uint64_t prune(function_ref<bool(uint32_t Base, uint32_t Leaf)> Keep) {
    DenseMap<uint64_t, bool> Decided;
    uint64_t Rejected = 0;
    auto keep = [&](uint32_t Base, uint32_t Leaf) {
      auto [D, New] = Decided.try_emplace((uint64_t(Base) << 32) | Leaf);
      if (New) {
        D->second = Keep(Base, Leaf);
        Rejected += !D->second;
      }
      return D->second;
    };
    auto leafOf = [&](const SampleContextFrame &F) {
      SampleContextFrameVector L{SampleContextFrame(F.Func, LineLocation(0, 0))};
      return Suffixes.intern(L);
    };
    // Boundary K is the call made at group K; its callee is the outermost
    // function of the next group, or, for the last boundary, of the node's
    // suffix. The boundaries inside a base's chain are the same for every
    // node under it: decided once per base (groups before the returned
    // index are dropped).
    DenseMap<uint32_t, size_t> InnerCuts;
    auto innerCut = [&](uint32_t Base) {
      if (auto It = InnerCuts.find(Base); It != InnerCuts.end())
        return It->second;
      // A copy: base() may grow GroupsOf.
      std::vector<SampleContextFrameVector> G = groupsOf(Base);
      size_t Cut = 0;
      for (size_t K = 0; K + 1 < G.size(); ++K)
        if (!keep(base(ArrayRef(G).take_front(K + 1)), leafOf(G[K + 1].front())))
          Cut = K + 1;
      InnerCuts[Base] = Cut;
      return Cut;
    };
    DenseMap<uint64_t, Node> Out;
    for (auto &[Key, N] : Nodes) {
      uint32_t Base = uint32_t(Key >> 32), Suffix = uint32_t(Key);
      size_t Groups = groupsOf(Base).size();
      size_t Cut = innerCut(Base);
      // The last boundary's prefix is the whole chain: Base itself.
      if (Groups && !keep(Base, leafOf(Suffixes.get(Suffix).front())))
        Cut = Groups;
      uint32_t NewBase = Base;
      if (Cut) {
        std::vector<SampleContextFrameVector> G = groupsOf(Base);
        NewBase = base(ArrayRef(G).drop_front(Cut));
      }
      Node &To = Out[(uint64_t(NewBase) << 32) | Suffix];
      for (const auto &[L, C] : N.BodyMax)
        To.BodyMax[L] += C;
      for (const auto &[LN, C] : N.Calls)
        To.Calls[LN] += C;
      To.Head += N.Head;
      To.Total += N.Total;
    }
    Nodes = std::move(Out);
    return Rejected;
  }
  /// The call-site groups base() was given for Base (none if unknown).
  ArrayRef<SampleContextFrameVector> groupsOf(uint32_t Base) const {
    return Base < GroupsOf.size() ? ArrayRef(GroupsOf[Base])
                                  : ArrayRef<SampleContextFrameVector>();
  }
  /// The node of (Base, Suffix), if any.
  const Node *find(uint32_t Base, uint32_t Suffix) const {
    auto It = Nodes.find((uint64_t(Base) << 32) | Suffix);
    return It == Nodes.end() ? nullptr : &It->second;
  }
  /// Moves the nodes into R.Profiles (as flat CS profiles).
  void emit() {
    for (auto &[Key, N] : Nodes) {
      SampleContextFrameVector V = Bases.get(uint32_t(Key >> 32));
      const SampleContextFrameVector &S = Suffixes.get(uint32_t(Key));
      V.append(S.begin(), S.end());
      R.Frames.push_back(std::move(V));
      FunctionSamples &FS = R.Profiles.create(SampleContext(R.Frames.back()));
      for (const auto &[L, C] : N.BodyMax)
        FS.addBodySamples(L.LineOffset, L.Discriminator, C);
      for (const auto &[LN, C] : N.Calls)
        FS.addCalledTargetSamples(LN.first.LineOffset, LN.first.Discriminator,
                                  FunctionId(LN.second), C);
      FS.addHeadSamples(N.Head);
      FS.addTotalSamples(N.Total);
    }
    Nodes.clear();
  }

private:
  ContextProfileResult &R;
  DenseMap<uint64_t, Node> Nodes;
  /// Per Bases id made by base(): its call-site groups.
  std::vector<std::vector<SampleContextFrameVector>> GroupsOf;
};

} // namespace

std::vector<uint64_t> contextProfileAddresses(const RawProfile &Raw, int Dso,
                                              const BinaryImage &Image,
                                              const BinaryTransferOracle &O) {
  std::vector<uint64_t> A;
  DenseSet<int> Touched;
  auto touch = [&](Loc L) {
    if (locDso(L) != Dso)
      return;
    if (std::optional<uint64_t> Addr = Image.fileOffsetToAddr(locOffset(L))) {
      int F = Image.functionAt(*Addr);
      if (F >= 0)
        Touched.insert(F);
      A.push_back(*Addr);
    }
  };
  for (const auto &KV : Raw.Contexts.Branches) {
    touch(KV.first.A);
    touch(KV.first.B);
  }
  for (const auto &KV : Raw.Contexts.Ranges)
    touch(KV.first.A);
  for (int F : Touched)
    for (const Inst &I : Image.instructions(unsigned(F)))
      A.push_back(I.Addr);
  const ContextTrie &T = Raw.Contexts.Trie;
  for (uint32_t Id = 1; Id < T.size(); ++Id)
    if (locDso(T.ret(Id)) == Dso)
      if (std::optional<uint64_t> C = O.callBefore(locOffset(T.ret(Id))))
        A.push_back(*C);
  return A;
}

ContextProfileResult buildContextProfile(const RawProfile &Raw, int Dso,
                                         const BinaryImage &Image,
                                         const BinaryTransferOracle &O,
                                         Symbolizer &Sym,
                                         const ContextProfileOptions &Opts) {
  ContextProfileResult R;
  ContextProfileStats &St = R.Stats;
  FlatProfiles Flat(R);
  const ContextTrie &T = Raw.Contexts.Trie;
  std::vector<Loc> Path;
  BinaryProfileOptions BO;
  BO.Threads = 1;
  BO.InferFlow = Opts.InferFlow;

  // Each instruction symbolized once, for all contexts (by function).
  DenseMap<unsigned, std::vector<InstSite>> Sites;
  auto sitesOf = [&](unsigned F) -> const std::vector<InstSite> & {
    auto [It, New] = Sites.try_emplace(F);
    if (New) {
      ArrayRef<Inst> Insts = Image.instructions(F);
      It->second.resize(Insts.size());
      for (size_t K = 0; K < Insts.size(); ++K) {
        ArrayRef<SourceFrame> Stack = Sym.frames(Insts[K].Addr);
        InstSite &S = It->second[K];
        S.Size = Insts[K].Size;
        if (Stack.empty())
          continue;
        SampleContextFrameVector V;
        appendFrames(V, Stack, /*WithInnermostLocation=*/false);
        S.Suffix = Flat.Suffixes.intern(V);
        S.Loc = LineLocation(Stack.front().LineOffset,
                             Stack.front().Discriminator);
        S.Dup = Stack.front().DupFactor;
      }
    }
    return It->second;
  };

  for (auto &[Ctx, CRaw] : splitByContext(Raw, Dso)) {
    ++St.Contexts;
    // The context's frames: each call site's inline stack, outermost
    // first. A call site without line information cuts the context there
    // (what is outside it stays unknown, as for a caller outside the
    // binary).
    std::vector<SampleContextFrameVector> Groups;
    T.path(Ctx, Path);
    for (Loc Ret : Path) {
      std::optional<uint64_t> Call =
          locDso(Ret) == Dso ? O.callBefore(locOffset(Ret)) : std::nullopt;
      ArrayRef<SourceFrame> Site =
          Call ? Sym.frames(*Call) : ArrayRef<SourceFrame>();
      if (Site.empty()) {
        ++St.CallSitesNoDebug;
        Groups.clear();
        continue;
      }
      Groups.emplace_back();
      appendFrames(Groups.back(), Site, /*WithInnermostLocation=*/true);
    }
    uint32_t Base = Flat.base(Groups);
    BinaryProfile P = buildBinaryProfile(CRaw, Dso, Image, BO);

    for (const auto &[F, Cfg] : P.Functions) {
      if (Cfg.InstCounts.empty())
        continue;
      ArrayRef<Inst> Insts = Image.instructions(F);
      const std::vector<InstSite> &FS = sitesOf(F);
      // Every instruction of a function that ran in this context: code
      // that did not run gets an explicit 0, as in the line-based profile
      // (clang takes a line with no record as unknown, and leaves a branch
      // between a counted arm and an unknown one without weights).
      // Walk InstCounts beside Insts, both in address order (as
      // BinaryProfile and FlowInference write it; sorted here if not).
      std::vector<std::pair<uint64_t, uint64_t>> Sorted;
      ArrayRef<std::pair<uint64_t, uint64_t>> Counts = Cfg.InstCounts;
      if (!llvm::is_sorted(Counts)) {
        Sorted.assign(Counts.begin(), Counts.end());
        llvm::sort(Sorted);
        Counts = Sorted;
      }
      size_t C = 0;
      FlatProfiles::Node *N = nullptr;
      uint32_t Last = ~0u;
      for (size_t K = 0; K < Insts.size(); ++K) {
        while (C < Counts.size() && Counts[C].first < Insts[K].Addr)
          ++C;
        uint64_t Count = C < Counts.size() && Counts[C].first == Insts[K].Addr
                             ? Counts[C].second
                             : 0;
        const InstSite &S = FS[K];
        if (S.Suffix == ~0u)
          continue;
        if (S.Suffix != Last) {
          N = &Flat.at(Base, S.Suffix);
          Last = S.Suffix;
        }
        // Executed bytes, as the line-based profile counts totals.
        N->Total += Count * S.Size;
        uint64_t &Max = N->BodyMax[S.Loc];
        Max = std::max(Max, Count * S.Dup);
      }
      // Calls from this context: targets at the call site, head samples
      // in the callee's context (this one plus the call site).
      for (const Edge &E : Cfg.Taken) {
        int Idx = instIndexAt(Insts, E.From);
        int Callee = E.To == ExternalAddr ? -1 : Image.functionAt(E.To);
        if (Idx < 0 || Callee < 0 || Image.functions()[Callee].Start != E.To)
          continue;
        InstKind K = Insts[Idx].Kind;
        if (K != InstKind::Call && K != InstKind::IndirectCall)
          continue;
        ArrayRef<SourceFrame> Site = Sym.frames(E.From);
        ArrayRef<SourceFrame> Target = Sym.frames(E.To);
        if (Site.empty() || Target.empty())
          continue;
        StringRef CalleeName = Target.back().Function;
        Flat.at(Base, FS[Idx].Suffix)
            .Calls[{FS[Idx].Loc, CalleeName}] += E.Count;
        std::vector<SampleContextFrameVector> CalleeGroups = Groups;
        CalleeGroups.emplace_back();
        appendFrames(CalleeGroups.back(), Site,
                     /*WithInnermostLocation=*/true);
        SampleContextFrameVector CalleeLeaf;
        CalleeLeaf.emplace_back(FunctionId(CalleeName), LineLocation(0, 0));
        Flat.at(Flat.base(CalleeGroups), Flat.Suffixes.intern(CalleeLeaf))
            .Head += E.Count;
      }
    }
  }
  // A pre-inliner, as llvm-profgen runs one: a call context stays a
  // context (nested at its call site, where clang will inline it with these
  // counts) only if the calls into it are hot and the function is small
  // enough to inline; every other context goes to the function's base
  // profile. Why: clang's sample loader inlines every hot call site that
  // has a nested profile, so keeping them all inlines big functions into
  // every caller. On sqlite (callgrind estcyc speedup over -O2): all
  // contexts kept 1.041; callee limit 150 bytes 1.075, 400 1.073, 1000
  // 1.076; the line-based profile 1.074. Inlined code (DWARF inline
  // frames) always stays with its outlined function, as in the line-based
  // profile.
  if (Opts.PreInline) {
    StringMap<uint64_t> Size;
    for (const FunctionSym &F : Image.functions()) {
      uint64_t &S = Size[F.Name];
      S = std::max(S, F.End - F.Start);
    }
    St.HotCallCount = Flat.hotCount();
    St.ContextsMoved = Flat.prune([&](uint32_t Base, uint32_t Leaf) {
      const FlatProfiles::Node *N = Flat.find(Base, Leaf);
      StringRef F = Flat.Suffixes.get(Leaf).front().Func.stringRef();
      uint64_t Sz = Size.lookup(F);
      return N && N->Head >= std::max<uint64_t>(St.HotCallCount, 1) && Sz &&
             Sz <= Opts.CalleeSizeLimit;
    });
  }
  Flat.emit();
  St.ContextProfiles = R.Profiles.size();
  ProfileConverter(R.Profiles).convertCSProfiles();
  St.TopLevel = R.Profiles.size();
  for (const auto &KV : R.Profiles)
    St.TotalSamples += KV.second.getTotalSamples();
  return R;
}

void printContextProfileStats(const ContextProfileStats &S,
                              const ContextStats &A, raw_ostream &OS) {
  auto pct = [](uint64_t N, uint64_t D) {
    return D ? 100.0 * double(N) / double(D) : 0.0;
  };
  OS << "context-sensitive profile:\n";
  OS << format("  samples with a call stack: %llu; unwound whole: %llu "
               "(%.1f%%), stopped at a call that did not match the stack: "
               "%llu, at an unusable entry: %llu\n",
               (unsigned long long)A.Samples,
               (unsigned long long)A.SamplesWhole,
               pct(A.SamplesWhole, A.Samples),
               (unsigned long long)A.SamplesMismatch,
               (unsigned long long)A.SamplesUnusable);
  OS << format("  entries given a context: %llu (%.1f%%; %llu after a stop)\n",
               (unsigned long long)A.Entries,
               pct(A.Entries, A.Entries + A.EntriesLeft),
               (unsigned long long)A.EntriesLeft);
  if (A.DepthCut)
    OS << format("  outermost frames dropped by the depth bound: %llu\n",
                 (unsigned long long)A.DepthCut);
  OS << format("  contexts in this binary: %llu; call contexts moved to base "
               "profiles (calls under the hot count %llu, or callee over the "
               "size limit): %llu; context profiles: %llu; call sites without "
               "line info: %llu\n",
               (unsigned long long)S.Contexts,
               (unsigned long long)S.HotCallCount,
               (unsigned long long)S.ContextsMoved,
               (unsigned long long)S.ContextProfiles,
               (unsigned long long)S.CallSitesNoDebug);
  OS << format("  top-level profiles: %llu, total samples: %llu\n",
               (unsigned long long)S.TopLevel,
               (unsigned long long)S.TotalSamples);
}

} // namespace lbr2prof
