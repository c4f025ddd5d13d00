//===- ContextProfileBuilder.cpp - calling contexts to a CS profile -------===//
//
// Per context: a RawProfile of its own (the context's branches and ranges,
// with the whole recording's weight scale) goes through the same
// validation as the whole program (buildBinaryProfile), then every counted
// instruction (line-based) or probe (probe-based) is named through
// CodeNames and put in the profile of its full context: the context's
// call-site frames, then its own inline frames.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Profile/ContextProfileBuilder.h"
#include "lbr2prof/Support/Parallel.h"
#include "FlatProfiles.h"
#include "NestedProfiles.h"
#include "PreInliner.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/ProfileData/ProfileCommon.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include <memory>
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
                                           bool IgnoreBuildId)
    : Image(Image),
      FileName(sys::path::filename(Image.path()).str()),
      BuildId(Image.buildId().begin(), Image.buildId().end()),
      IgnoreBuildId(IgnoreBuildId) {}

bool BinaryTransferOracle::isBinary(const DsoInfo &D) const {
  DsoMatch M = matchDso(D.Path, D.BuildId, FileName, BuildId);
  return M == DsoMatch::Same || (M == DsoMatch::BuildIdDiffers && IgnoreBuildId);
}

/// The addresses in executable segments whose file offset (by
/// addrToFileOffset's rule: the first segment that holds the address) is
/// Off, ascending: usually one.
static SmallVector<uint64_t, 2> addrsAt(const BinaryImage &Image,
                                        uint64_t Off) {
  SmallVector<uint64_t, 2> As;
  for (const Segment &S : Image.segments())
    if (S.Exec && Off >= S.Offset && Off - S.Offset < S.FileSize) {
      uint64_t A = S.VAddr + (Off - S.Offset);
      if (addrToFileOffset(Image, A) == Off)
        As.push_back(A);
    }
  llvm::sort(As);
  As.erase(std::unique(As.begin(), As.end()), As.end());
  return As;
}

// The oracle decodes only the functions it is asked about (each once, by
// BinaryImage::instructions): decoding every function of the binary at the
// first question was 55% of the CPU of a context-sensitive profile of a 300
// MB binary with 320 hot functions (bench/scale, 9.1 s wall). Its answers
// are those of a table of every function's calls and returns by file
// offset, where the function later in address order wins a shared offset.

const Inst *BinaryTransferOracle::startingAt(uint64_t A) const {
  int F = Image.functionAt(A);
  if (F < 0)
    return nullptr;
  ArrayRef<Inst> Insts = Image.instructions(unsigned(F));
  int K = instIndexAt(Insts, A);
  return K < 0 ? nullptr : &Insts[K];
}

TransferOracle::Kind BinaryTransferOracle::kindAt(uint64_t Off) const {
  bool IsReturn = false;
  for (uint64_t A : addrsAt(Image, Off))
    if (const Inst *I = startingAt(A)) {
      if (I->Kind == InstKind::Call || I->Kind == InstKind::IndirectCall)
        return Call;
      IsReturn |= I->Kind == InstKind::Return;
    }
  return IsReturn ? Return : Other;
}

uint64_t BinaryTransferOracle::returnOffsetOf(uint64_t Off) const {
  uint64_t Result = ~0ULL;
  for (uint64_t A : addrsAt(Image, Off))
    if (const Inst *I = startingAt(A))
      if (I->Kind == InstKind::Call || I->Kind == InstKind::IndirectCall)
        Result = Off + I->Size;
  return Result;
}

std::optional<uint64_t> BinaryTransferOracle::callBefore(uint64_t Off) const {
  // A call that ends at Off: it holds the byte before Off's address (in
  // whichever function that byte is: a call to a function that does not
  // return can end its function), and its own offset plus its size is Off.
  std::optional<uint64_t> Result;
  for (uint64_t A : addrsAt(Image, Off)) {
    if (A == 0)
      continue;
    int F = Image.functionAt(A - 1);
    if (F < 0)
      continue;
    ArrayRef<Inst> Insts = Image.instructions(unsigned(F));
    auto It = llvm::upper_bound(
        Insts, A - 1, [](uint64_t X, const Inst &I) { return X < I.Addr; });
    if (It == Insts.begin())
      continue;
    const Inst &I = *std::prev(It);
    if ((I.Kind != InstKind::Call && I.Kind != InstKind::IndirectCall) ||
        I.Addr + I.Size != A)
      continue;
    std::optional<uint64_t> CallOff = addrToFileOffset(Image, I.Addr);
    if (CallOff && *CallOff + I.Size == Off)
      Result = I.Addr;
  }
  return Result;
}

bool BinaryTransferOracle::isReturnSite(uint64_t Off) const {
  return callBefore(Off).has_value();
}

//===----------------------------------------------------------------------===//
// The profile
//===----------------------------------------------------------------------===//

namespace {

/// One branch or range of one context.
struct ContextEntry {
  uint32_t Ctx = 0;
  bool IsRange = false;
  Loc A = 0, B = 0;
  ContextCount C;
};

/// The context-keyed counts with an end in DSO Dso, grouped by context (ids
/// ascending; within one, branches then ranges, each in map order), so
/// that one context's RawProfile at a time is built from them.
std::vector<ContextEntry> entriesByContext(const RawProfile &Raw, int Dso) {
  std::vector<ContextEntry> All;
  auto collect = [&](const auto &From, bool IsRange) {
    for (const auto &[K, V] : From)
      if (locDso(K.A) == Dso || locDso(K.B) == Dso)
        All.push_back({K.Ctx, IsRange, K.A, K.B, V});
  };
  collect(Raw.Contexts.Branches, false);
  collect(Raw.Contexts.Ranges, true);
  // A counting sort: stable, linear in the entries and contexts.
  std::vector<size_t> Next(Raw.Contexts.Trie.size() + 1);
  for (const ContextEntry &E : All)
    ++Next[E.Ctx + 1];
  for (size_t K = 1; K < Next.size(); ++K)
    Next[K] += Next[K - 1];
  std::vector<ContextEntry> Sorted(All.size());
  for (const ContextEntry &E : All)
    Sorted[Next[E.Ctx]++] = E;
  return Sorted;
}

/// The context of Entries[I], from I onwards, as a RawProfile (so
/// buildBinaryProfile validates it as it does the whole program's), on the
/// recording's weight scale; I moves past it.
RawProfile nextContext(const RawProfile &Raw, ArrayRef<ContextEntry> Entries,
                       size_t &I) {
  RawProfile R;
  R.WeightedEntries = Raw.WeightedEntries;
  R.TotalWeight = Raw.TotalWeight;
  R.SamplesWithoutPeriod = Raw.SamplesWithoutPeriod;
  for (uint32_t Ctx = Entries[I].Ctx; I < Entries.size() && Entries[I].Ctx == Ctx;
       ++I) {
    const ContextEntry &E = Entries[I];
    if (E.IsRange) {
      RangeCount &C = R.Ranges[{E.A, E.B}];
      C.Count += E.C.Count;
      C.Weight += E.C.Weight;
    } else {
      BranchCount &C = R.Branches[{E.A, E.B}];
      C.Count += E.C.Count;
      C.Weight += E.C.Weight;
    }
  }
  return R;
}

/// Appends the frames of an inline stack (innermost first), outermost
/// first, each with its location; the innermost keeps its own (a call
/// site's) only if WithInnermostLocation, else gets {0,0} (a profile's
/// leaf frame).
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

/// What an instruction (line-based) or a probe (probe-based) contributes,
/// named once for all contexts: the inline frames above it (an interned
/// suffix: every frame with its location, the innermost function with
/// none), its own location, the factor its count is multiplied by for the
/// location (duplication factor) and for the total (bytes, or 1).
struct InstSite {
  uint64_t Addr = 0;
  uint32_t Suffix = ~0u; ///< ~0u: no name for this code
  LineLocation Loc{0, 0};
  uint32_t Dup = 1;
  uint8_t Size = 0;
  /// The suffix starts a context of its own (a probe inlined at a call
  /// without a call probe): the calling context does not apply.
  bool Restart = false;
};

/// How a call instruction names its call site in a context.
enum class SiteKind {
  None,    ///< no name: the context is cut there
  Append,  ///< the frames add to the caller's context
  Restart, ///< the frames start a context of their own
};

/// The binary address of L, if L is in DSO Dso and in an executable
/// segment of Image.
std::optional<uint64_t> addrIn(Loc L, int Dso, const BinaryImage &Image) {
  if (locDso(L) != Dso)
    return std::nullopt;
  return Image.fileOffsetToAddr(locOffset(L));
}

/// The call before return address Ret, if Ret is in DSO Dso.
std::optional<uint64_t> callOf(Loc Ret, int Dso,
                               const BinaryTransferOracle &O) {
  if (locDso(Ret) != Dso)
    return std::nullopt;
  return O.callBefore(locOffset(Ret));
}

} // namespace

std::vector<bool> functionsRun(const RawProfile &Raw, int Dso,
                               const BinaryImage &Image,
                               const BinaryTransferOracle *O) {
  size_t N = Image.functions().size();
  std::vector<bool> Ran(N);
  auto touchAddr = [&](uint64_t Addr) {
    int F = Image.functionAt(Addr);
    if (F >= 0)
      Ran[functionFamily(Image, unsigned(F))] = true;
  };
  auto touch = [&](Loc L) {
    if (std::optional<uint64_t> Addr = addrIn(L, Dso, Image))
      touchAddr(*Addr);
  };
  for (const auto &KV : Raw.Branches) {
    touch(KV.first.first);
    touch(KV.first.second);
  }
  for (const auto &KV : Raw.Ranges) {
    touch(KV.first.first);
    touch(KV.first.second);
  }
  for (const auto &KV : Raw.Contexts.Branches) {
    touch(KV.first.A);
    touch(KV.first.B);
  }
  for (const auto &KV : Raw.Contexts.Ranges) {
    touch(KV.first.A);
    touch(KV.first.B);
  }
  const ContextTrie &T = Raw.Contexts.Trie;
  if (O)
    for (uint32_t Id = 1; Id < T.size(); ++Id)
      if (std::optional<uint64_t> C = callOf(T.ret(Id), Dso, *O))
        touchAddr(*C);
  // Families: a function's pieces share its parent's mark.
  for (unsigned F = 0; F < N; ++F)
    if (Ran[functionFamily(Image, F)])
      Ran[F] = true;
  return Ran;
}

std::vector<uint64_t> contextProfileAddresses(const RawProfile &Raw, int Dso,
                                              const BinaryImage &Image,
                                              const BinaryTransferOracle &O) {
  std::vector<uint64_t> A;
  DenseSet<int> Touched;
  auto touch = [&](Loc L) {
    if (std::optional<uint64_t> Addr = addrIn(L, Dso, Image)) {
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
    if (std::optional<uint64_t> C = callOf(T.ret(Id), Dso, O))
      A.push_back(*C);
  return A;
}

namespace {

/// How code is named in the profile: by DWARF lines (line-based) or by
/// pseudo probes (probe-based). Each names the code of a function (its
/// sites), the call sites a context is made of, and callees.
class CodeNames {
public:
  virtual ~CodeNames() = default;
  /// The sites of function F in address order (several may share one).
  virtual void sites(unsigned F, FrameTable &Suffixes,
                     std::vector<InstSite> &Out) = 0;
  /// The frames of the call at Addr, outermost first, the innermost with
  /// the call's own location.
  virtual SiteKind callSite(uint64_t Addr, SampleContextFrameVector &G) = 0;
  /// The profile name of the function whose entry a call reached ("": none).
  virtual StringRef calleeName(unsigned Callee) = 0;
  /// Adds the bytes of F's code to the suffix that names them in Bytes
  /// (Sites: sites(F)'s), once per function's code.
  virtual void ownBytes(unsigned F, ArrayRef<InstSite> Sites,
                        DenseMap<uint32_t, uint64_t> &Bytes) = 0;
  /// Probe-based: the instances of a probe (copies of a duplicated block)
  /// add up, and a jump to another function's entry (a tail call) gives a
  /// call target, since clang left the call's probe on it. Line-based: a
  /// location takes its hottest instruction's count.
  bool ProbeBased = false;
};

class LineNames : public CodeNames {
public:
  LineNames(const BinaryImage &Image, Symbolizer &Sym)
      : Image(Image), Sym(Sym) {}
  void sites(unsigned F, FrameTable &Suffixes,
             std::vector<InstSite> &Out) override {
    ArrayRef<Inst> Insts = Image.instructions(F);
    Out.resize(Insts.size());
    for (size_t K = 0; K < Insts.size(); ++K) {
      ArrayRef<SourceFrame> Stack = Sym.frames(Insts[K].Addr);
      InstSite &S = Out[K];
      S.Addr = Insts[K].Addr;
      S.Size = Insts[K].Size;
      if (Stack.empty())
        continue;
      SampleContextFrameVector V;
      appendFrames(V, Stack, /*WithInnermostLocation=*/false);
      S.Suffix = Suffixes.intern(V);
      S.Loc = LineLocation(Stack.front().LineOffset,
                           Stack.front().Discriminator);
      S.Dup = Stack.front().DupFactor;
    }
  }
  SiteKind callSite(uint64_t Addr, SampleContextFrameVector &G) override {
    ArrayRef<SourceFrame> Site = Sym.frames(Addr);
    if (Site.empty())
      return SiteKind::None;
    appendFrames(G, Site, /*WithInnermostLocation=*/true);
    return SiteKind::Append;
  }
  StringRef calleeName(unsigned Callee) override {
    ArrayRef<SourceFrame> Target = Sym.frames(Image.functions()[Callee].Start);
    return Target.empty() ? StringRef() : StringRef(Target.back().Function);
  }
  void ownBytes(unsigned, ArrayRef<InstSite> Sites,
                DenseMap<uint32_t, uint64_t> &Bytes) override {
    for (const InstSite &S : Sites)
      if (S.Suffix != ~0u)
        Bytes[S.Suffix] += S.Size;
  }

private:
  const BinaryImage &Image;
  Symbolizer &Sym;
};

class ProbeNames : public CodeNames {
public:
  ProbeNames(const BinaryImage &Image, const PseudoProbes &Probes)
      : Image(Image), Probes(Probes) {
    ProbeBased = true;
    for (unsigned F = 0; F < Image.functions().size(); ++F)
      Family[functionFamily(Image, F)].push_back(F);
  }
  /// Every probe of F's family (a function and its .cold/.part pieces), so
  /// that a context where only one piece ran still writes the others'
  /// probes as 0 (counts of the piece that ran add to them). In address
  /// order: the pieces are listed in function order, which is address
  /// order, and their probes are sorted.
  void sites(unsigned F, FrameTable &Suffixes,
             std::vector<InstSite> &Out) override {
    for (unsigned G : Family[functionFamily(Image, F)]) {
      const FunctionSym &S = Image.functions()[G];
      for (const Probe &Q : Probes.probesIn(S.Start, S.End)) {
        InstSite Site;
        Site.Addr = Q.Addr;
        Site.Size = 1;
        SampleContextFrameVector V;
        if (frames(Q, LineLocation(0, 0), V, Site.Restart)) {
          Site.Suffix = Suffixes.intern(V);
          Site.Loc = LineLocation(Q.Index, Q.Discriminator);
        }
        Out.push_back(Site);
      }
    }
  }
  SiteKind callSite(uint64_t Addr, SampleContextFrameVector &G) override {
    const Probe *CallProbe = Probes.callProbeAt(Addr);
    bool Restart = false;
    if (!CallProbe ||
        !frames(*CallProbe,
                LineLocation(CallProbe->Index, CallProbe->Discriminator), G,
                Restart))
      return SiteKind::None;
    return Restart ? SiteKind::Restart : SiteKind::Append;
  }
  StringRef calleeName(unsigned Callee) override {
    return Probes.calleeName(Image.functions()[Callee]);
  }
  /// An instruction belongs to the last probe at or before it in its
  /// function: a block probe stands at its block's start (instructions
  /// before a function's first probe are not counted).
  void ownBytes(unsigned F, ArrayRef<InstSite> Sites,
                DenseMap<uint32_t, uint64_t> &Bytes) override {
    unsigned Fam = functionFamily(Image, F);
    if (!SizedFamilies.insert(Fam).second)
      return;
    // Every copy is sized, if only at 0: one whose probes all share their
    // addresses with another copy's gets no byte by this reckoning.
    for (const InstSite &S : Sites)
      if (S.Suffix != ~0u)
        Bytes.try_emplace(S.Suffix, 0);
    size_t K = 0;
    for (unsigned G : Family[Fam]) {
      const FunctionSym &Sym = Image.functions()[G];
      const InstSite *At = nullptr;
      for (const Inst &I : Image.instructions(G)) {
        for (; K < Sites.size() && Sites[K].Addr <= I.Addr; ++K)
          if (Sites[K].Addr >= Sym.Start)
            At = &Sites[K];
        if (At && At->Suffix != ~0u)
          Bytes[At->Suffix] += I.Size;
      }
    }
  }

private:
  /// Q's inline chain as frames, the innermost with location Leaf.
  bool frames(const Probe &Q, LineLocation Leaf, SampleContextFrameVector &V,
              bool &Restart) {
    if (!Probes.inlineChain(Q, Chain, &Restart))
      return false;
    for (size_t K = 0; K < Chain.size(); ++K)
      V.emplace_back(FunctionId(Chain[K].first->Name),
                     K + 1 < Chain.size() ? LineLocation(Chain[K].second, 0)
                                          : Leaf);
    return true;
  }
  const BinaryImage &Image;
  const PseudoProbes &Probes;
  DenseMap<unsigned, std::vector<unsigned>> Family;
  DenseSet<unsigned> SizedFamilies;
  std::vector<std::pair<const ProbeFunctionDesc *, uint32_t>> Chain;
};

/// A call site, named once: how it joins a context, its frames, and the
/// caller's node and location its call targets go to.
struct CallSiteInfo {
  SiteKind Kind = SiteKind::None;
  SampleContextFrameVector Group;
  uint32_t Suffix = 0;
  LineLocation Loc{0, 0};
};

/// Puts the counts of every context into a FlatProfiles: per context, a
/// BinaryProfile of its own, whose counted sites and calls are named under
/// the context's call-site frames. Each function's code and each call site
/// is named once, for all contexts.
class ContextCounter {
public:
  ContextCounter(const BinaryImage &Image, int Dso,
                 const BinaryTransferOracle &O, CodeNames &Names,
                 FlatProfiles &Flat, uint32_t Root,
                 FlowInferenceMethod InferFlow, unsigned Threads,
                 ContextProfileStats &St)
      : Image(Image), Dso(Dso), O(O), Names(Names), Flat(Flat), Root(Root),
        St(St), Threads(std::max(1u, Threads)) {
    BO.Threads = 1;
    BO.InferFlow = InferFlow;
    BO.Leaders = &Leaders;
    // Only counts and taken edges are read below, unless flow inference
    // needs the blocks.
    if (InferFlow == FlowInferenceMethod::None)
      BO.Parts = ProfileParts::Counts;
  }
  /// Every context of Raw with a branch or range in the binary.
  void addContexts(const RawProfile &Raw);
  /// Per function that ran: the bytes of its own code, without the code
  /// inlined into it; its outlined copy's, or if none ran, its largest
  /// inlined copy's (llvm-profgen sizes each inline context likewise).
  StringMap<uint64_t> ownSizes();
  /// The bytes of each inlined copy's own code, by the suffix naming it.
  const DenseMap<uint32_t, uint64_t> &copySizes() {
    if (CopyBytes.empty())
      for (const auto &[F, S] : Sites)
        Names.ownBytes(F, S, CopyBytes);
    return CopyBytes;
  }

private:
  /// The sites of function F, named on first use.
  const std::vector<InstSite> &sitesOf(unsigned F);
  /// The call site of the call at binary address Addr, named on first use.
  const CallSiteInfo &callSiteAt(uint64_t Addr);
  /// The frames of context Ctx: each call site's inline frames, outermost
  /// first.
  std::vector<SampleContextFrameVector> contextGroups(const ContextTrie &T,
                                                      uint32_t Ctx);
  /// The sites of function F by the profile they count in, in the order
  /// those profiles are first met in address order: per profile, its
  /// sites' distinct locations, sorted; per site, its profile and location
  /// there (Group ~0u: no name).
  struct SitePlan {
    struct Group {
      uint32_t Suffix;
      bool Restart;
      uint32_t First; ///< where its locations start in Locs
    };
    std::vector<Group> Groups;
    std::vector<LineLocation> Locs;
    std::vector<uint32_t> SiteGroup, SiteLoc;
  };
  const SitePlan &planOf(unsigned F);
  /// The counts of the sites of function F that ran in the context Base.
  void addSiteCounts(unsigned F,
                     ArrayRef<std::pair<uint64_t, uint64_t>> Counts,
                     uint32_t Base);
  /// The calls from function F in the context Base (call-site groups
  /// Groups).
  void addCalls(unsigned F, const FunctionCfg &Cfg,
                ArrayRef<SampleContextFrameVector> Groups, uint32_t Base);

  const BinaryImage &Image;
  int Dso;
  const BinaryTransferOracle &O;
  CodeNames &Names;
  FlatProfiles &Flat;
  /// The base id of the empty context.
  uint32_t Root;
  ContextProfileStats &St;
  LeaderCache Leaders;
  BinaryProfileOptions BO;
  DenseMap<unsigned, std::vector<InstSite>> Sites;
  DenseMap<unsigned, SitePlan> Plans;
  /// addSiteCounts()'s values per location and profiles, kept for their
  /// capacity.
  std::vector<uint64_t> PlanValues;
  std::vector<FlatProfiles::Node *> PlanNodes;
  DenseMap<uint64_t, CallSiteInfo> CallSites;
  DenseMap<uint32_t, uint64_t> CopyBytes;
  /// The trie path of the context at hand, kept for its capacity.
  std::vector<Loc> Path;
  unsigned Threads;
};

const std::vector<InstSite> &ContextCounter::sitesOf(unsigned F) {
  auto [It, New] = Sites.try_emplace(F);
  if (New)
    Names.sites(F, Flat.Suffixes, It->second);
  return It->second;
}

StringMap<uint64_t> ContextCounter::ownSizes() {
  StringMap<uint64_t> Outlined, Inlined;
  for (const auto &[Suffix, B] : copySizes()) {
    const SampleContextFrameVector &V = Flat.Suffixes.get(Suffix);
    // At least a byte: a copy whose probes share one address has none of
    // its own by the probes' reckoning, and 0 reads as unknown.
    uint64_t &Size = (V.size() == 1 ? Outlined : Inlined)[V.back().Func.stringRef()];
    Size = std::max({Size, B, uint64_t(1)});
  }
  for (const auto &KV : Inlined)
    Outlined.try_emplace(KV.getKey(), KV.getValue());
  return Outlined;
}

const CallSiteInfo &ContextCounter::callSiteAt(uint64_t Addr) {
  auto [It, New] = CallSites.try_emplace(Addr);
  CallSiteInfo &C = It->second;
  if (New) {
    C.Kind = Names.callSite(Addr, C.Group);
    if (C.Kind != SiteKind::None) {
      // The caller's own node: the frames with the innermost location
      // cleared, as a suffix.
      SampleContextFrameVector V = C.Group;
      C.Loc = V.back().Location;
      V.back().Location = LineLocation(0, 0);
      C.Suffix = Flat.Suffixes.intern(V);
    }
  }
  return C;
}

std::vector<SampleContextFrameVector>
ContextCounter::contextGroups(const ContextTrie &T, uint32_t Ctx) {
  // A call site without a name (no line information, no call probe) cuts
  // the context there: what is outside it stays unknown, as for a caller
  // outside the binary.
  std::vector<SampleContextFrameVector> Groups;
  T.path(Ctx, Path);
  for (Loc Ret : Path) {
    std::optional<uint64_t> Call = callOf(Ret, Dso, O);
    const CallSiteInfo *C = Call ? &callSiteAt(*Call) : nullptr;
    if (!C || C->Kind == SiteKind::None) {
      ++St.CallSitesNoDebug;
      Groups.clear();
      continue;
    }
    if (C->Kind == SiteKind::Restart)
      Groups.clear();
    Groups.push_back(C->Group);
  }
  return Groups;
}

void ContextCounter::addContexts(const RawProfile &Raw) {
  std::vector<ContextEntry> Entries = entriesByContext(Raw, Dso);
  // Where each context's entries start.
  std::vector<size_t> Starts;
  for (size_t I = 0; I < Entries.size(); ++I)
    if (I == 0 || Entries[I].Ctx != Entries[I - 1].Ctx)
      Starts.push_back(I);
  Starts.push_back(Entries.size());
  // Each context's CFG profile depends on its counts only: a batch of them
  // is made on the threads (each with its own leader cache), then added in
  // context order on this one, as one thread would. The CFGs were a sixth
  // of sqlite's CSSPGO profile building (4,600 contexts).
  size_t NumContexts = Starts.size() - 1;
  unsigned T = NumContexts >= 64 ? Threads : 1;
  std::vector<LeaderCache> Caches(T);
  constexpr size_t Batch = 256;
  std::vector<BinaryProfile> Made(std::min(Batch, NumContexts));
  for (size_t First = 0; First < NumContexts; First += Batch) {
    size_t N = std::min(Batch, NumContexts - First);
    parallelParts(N, T, T, [&](size_t K, size_t B, size_t E) {
      BinaryProfileOptions O = BO;
      O.Leaders = T == 1 ? &Leaders : &Caches[K];
      for (size_t C = B; C < E; ++C) {
        size_t I = Starts[First + C];
        RawProfile CRaw = nextContext(Raw, Entries, I);
        Made[C] = buildBinaryProfile(CRaw, Dso, Image, O);
      }
    });
    for (size_t C = 0; C < N; ++C) {
      uint32_t Ctx = Entries[Starts[First + C]].Ctx;
      ++St.Contexts;
      std::vector<SampleContextFrameVector> Groups =
          contextGroups(Raw.Contexts.Trie, Ctx);
      uint32_t Base = Flat.base(Groups);
      BinaryProfile P = std::move(Made[C]);
      for (const auto &[F, Cfg] : P.Functions) {
        if (Cfg.InstCounts.empty())
          continue;
        addSiteCounts(F, Cfg.InstCounts, Base);
        addCalls(F, Cfg, Groups, Base);
      }
    }
  }
}

const ContextCounter::SitePlan &ContextCounter::planOf(unsigned F) {
  auto It = Plans.find(F);
  if (It != Plans.end())
    return It->second;
  const std::vector<InstSite> &Sites = sitesOf(F);
  SitePlan P;
  DenseMap<uint64_t, uint32_t> GroupOf;
  std::vector<std::vector<LineLocation>> Locs;
  P.SiteGroup.assign(Sites.size(), ~0u);
  P.SiteLoc.assign(Sites.size(), 0);
  for (size_t K = 0; K < Sites.size(); ++K) {
    const InstSite &S = Sites[K];
    if (S.Suffix == ~0u)
      continue;
    auto [G, New] = GroupOf.try_emplace((uint64_t(S.Restart) << 32) | S.Suffix,
                                        uint32_t(P.Groups.size()));
    if (New) {
      P.Groups.push_back({S.Suffix, S.Restart, 0});
      Locs.emplace_back();
    }
    P.SiteGroup[K] = G->second;
    Locs[G->second].push_back(S.Loc);
  }
  for (size_t G = 0; G < Locs.size(); ++G) {
    llvm::sort(Locs[G]);
    Locs[G].erase(std::unique(Locs[G].begin(), Locs[G].end()), Locs[G].end());
    P.Groups[G].First = uint32_t(P.Locs.size());
    P.Locs.insert(P.Locs.end(), Locs[G].begin(), Locs[G].end());
  }
  for (size_t K = 0; K < Sites.size(); ++K)
    if (uint32_t G = P.SiteGroup[K]; G != ~0u) {
      auto B = Locs[G].begin();
      P.SiteLoc[K] = P.Groups[G].First +
                     uint32_t(llvm::lower_bound(Locs[G], Sites[K].Loc) - B);
    }
  return Plans.try_emplace(F, std::move(P)).first->second;
}

void ContextCounter::addSiteCounts(
    unsigned F, ArrayRef<std::pair<uint64_t, uint64_t>> Counts,
    uint32_t Base) {
  // Every site of a function that ran in this context: code that did not
  // run gets an explicit 0, as in the context-free profiles (clang takes a
  // location with no record as unknown, and leaves a branch between a
  // counted arm and an unknown one without weights). Walk InstCounts
  // beside the sites, both in address order (as BinaryProfile and
  // FlowInference write it; sorted here if not). Each profile's values go
  // into its sorted counts in one merge (site by site, a large function's
  // sites looked up and inserted one at a time in each context were a
  // tenth of sqlite's CSSPGO instructions).
  const SitePlan &P = planOf(F);
  const std::vector<InstSite> &Sites = sitesOf(F);
  std::vector<std::pair<uint64_t, uint64_t>> Sorted;
  if (!llvm::is_sorted(Counts)) {
    Sorted.assign(Counts.begin(), Counts.end());
    llvm::sort(Sorted);
    Counts = Sorted;
  }
  // The profiles, made in the order their sites are first met.
  PlanNodes.clear();
  for (const SitePlan::Group &G : P.Groups)
    PlanNodes.push_back(&Flat.at(G.Restart ? Root : Base, G.Suffix));
  PlanValues.assign(P.Locs.size(), 0);
  bool Probes = Names.ProbeBased;
  size_t C = 0;
  for (size_t K = 0; K < Sites.size(); ++K) {
    const InstSite &S = Sites[K];
    while (C < Counts.size() && Counts[C].first < S.Addr)
      ++C;
    uint64_t Count =
        C < Counts.size() && Counts[C].first == S.Addr ? Counts[C].second : 0;
    uint32_t G = P.SiteGroup[K];
    if (G == ~0u)
      continue;
    // Executed bytes (line-based, as its context-free profile counts
    // totals) or probe executions.
    PlanNodes[G]->Total += Count * S.Size;
    uint64_t &V = PlanValues[P.SiteLoc[K]];
    V = Probes ? V + Count : std::max(V, Count * S.Dup);
  }
  for (size_t G = 0; G < P.Groups.size(); ++G) {
    size_t B = P.Groups[G].First;
    size_t E = G + 1 < P.Groups.size() ? P.Groups[G + 1].First : P.Locs.size();
    PlanNodes[G]->Body.addSorted(
        ArrayRef<LineLocation>(P.Locs).slice(B, E - B),
        ArrayRef<uint64_t>(PlanValues).slice(B, E - B),
        [Probes](uint64_t Old, uint64_t New) {
          return Probes ? Old + New : std::max(Old, New);
        });
  }
}

void ContextCounter::addCalls(unsigned F, const FunctionCfg &Cfg,
                              ArrayRef<SampleContextFrameVector> Groups,
                              uint32_t Base) {
  // Calls from this context: targets at the call site, head samples in the
  // callee's context (this one plus the call site).
  for (const Edge &E : Cfg.Taken) {
    unsigned Callee;
    EntryTransfer X = entryTransfer(Image, F, E, Callee);
    bool IsCall = X == EntryTransfer::Call;
    if (!IsCall && !(X == EntryTransfer::TailCall && Names.ProbeBased))
      continue;
    const CallSiteInfo &Site = callSiteAt(E.From);
    StringRef CalleeName = Names.calleeName(Callee);
    if (Site.Kind == SiteKind::None || CalleeName.empty())
      continue;
    bool Restart = Site.Kind == SiteKind::Restart;
    Flat.at(Restart ? Root : Base, Site.Suffix).Calls[{Site.Loc, CalleeName}] +=
        E.Count;
    // A tail call's callee runs in its caller's caller's context.
    if (!IsCall)
      continue;
    std::vector<SampleContextFrameVector> CalleeGroups;
    if (!Restart)
      CalleeGroups.assign(Groups.begin(), Groups.end());
    CalleeGroups.push_back(Site.Group);
    Flat.at(Flat.base(CalleeGroups), Flat.leafOf(CalleeName)).Head += E.Count;
  }
}

/// The earlier pre-inliner (--cs-preinliner=size): a call context stays a
/// context (nested at its call site, marked to be inlined there with these
/// counts) only if the calls into it are hot and the function is small;
/// every other context goes to the function's base profile. clang inlines
/// every marked context whatever its own cost model says, so the size limit
/// is what bounds code growth. Callgrind's estimate of the speedup over -O2
/// (bench/pgo, one perf.data per program; instrumented PGO 1.099 and
/// 1.046):
///   limit (bytes)     40     75    110    150    300   1000
///   sqlite, probes  1.097  1.099  1.089  1.087  1.085  1.079
///   gawk, probes    1.046  1.047  1.053  1.046  1.052  1.032
///   sqlite, lines          1.088                       1.072
///   gawk, lines            1.038                       1.029
/// Without the marks clang decides by itself which nested contexts to
/// inline: sqlite, probes, limit 1000: 1.064; every context kept, unmarked
/// (limit 0): 1.057; lines 1000: 1.068, gawk 1.025. Inlined code (DWARF
/// inline frames, probe inline trees) always stays with its outlined
/// function, as in the context-free profiles. CalleeSizeLimit in bytes.
/// This is --cs-preinliner=size; the default, ContextProfileOptions::
/// PreInliner == Budget, decides in PreInliner.cpp.
void preInline(FlatProfiles &Flat, const BinaryImage &Image,
               const ContextProfileOptions &Opts, ContextCounter &Counter,
               ContextProfileStats &St) {
  St.Budget = Opts.PreInliner == ContextProfileOptions::PreInlinerKind::Budget;
  // Sizes: a function's outlined bytes (inlined code included; none for a
  // function without a symbol, whose calls then stay out); where inlined
  // code is decided as calls are, its own bytes, the code inlined into it
  // being sized (and kept or not) apart: a function that ran only inlined
  // has its largest copy's own bytes, one that did not run its symbol's.
  // Cold sizes as Keep does: its calls are decided as Keep's are (sized by
  // copies, gawk's DEREF, inlined everywhere, kept a call from main that
  // Keep moves out: 100 % against 108 on recording 1).
  using InlinedCode = ContextProfileOptions::InlinedCode;
  bool Split = St.Budget && Opts.Inlined != InlinedCode::Keep;
  bool OwnSizes = St.Budget && Opts.Inlined == InlinedCode::Decide;
  StringMap<uint64_t> Size;
  // The hotness scale is taken before the split, as for Keep: per inlined
  // copy, not per function (the calls a copy leaves do not count either).
  std::vector<uint64_t> Cutoffs;
  if (Split) {
    Cutoffs = Flat.hotnessCutoffs();
    Flat.splitInlineFrames();
    inferInlinedCalls(Flat, Opts.EntryEstimate);
  }
  if (OwnSizes)
    Size = Counter.ownSizes();
  for (const FunctionSym &F : Image.functions()) {
    // Aliases of one name: the largest. With own sizes, a symbol's bytes
    // only stand for a function that did not run.
    auto [It, New] = Size.try_emplace(F.Name, 0);
    if (New || !OwnSizes)
      It->second = std::max(It->second, F.End - F.Start);
  }
  if (St.Budget) {
    St.ContextsMoved = preInlineWithBudget(
        Flat, Size,
        OwnSizes ? Counter.copySizes() : DenseMap<uint32_t, uint64_t>(),
        Opts, St, Cutoffs);
    return;
  }
  uint64_t CalleeSizeLimit = Opts.CalleeSizeLimit;
  St.HotCallCount = Flat.hotCount();
  St.ContextsMoved = Flat.prune([&](uint32_t Base, uint32_t Leaf) {
    const FlatProfiles::Node *N = Flat.find(Base, Leaf);
    StringRef F = Flat.Suffixes.get(Leaf).front().Func.stringRef();
    uint64_t Sz = Size.lookup(F);
    return N && N->Head >= std::max<uint64_t>(St.HotCallCount, 1) && Sz &&
           Sz <= CalleeSizeLimit;
  });
}

} // namespace

ContextProfileResult buildContextProfile(const RawProfile &Raw, int Dso,
                                         const BinaryImage &Image,
                                         const BinaryTransferOracle &O,
                                         Symbolizer *Sym,
                                         const ContextProfileOptions &Opts) {
  ContextProfileResult R;
  ContextProfileStats &St = R.Stats;
  St.ProbeBased = Opts.Probes != nullptr;
  FlatProfiles Flat;
  std::unique_ptr<CodeNames> Names;
  if (Opts.Probes)
    Names = std::make_unique<ProbeNames>(Image, *Opts.Probes);
  else
    Names = std::make_unique<LineNames>(Image, *Sym);
  const uint32_t Root = Flat.base({});
  ContextCounter Counter(Image, Dso, O, *Names, Flat, Root, Opts.InferFlow,
                         Opts.Threads, St);
  Counter.addContexts(Raw);
  if (Opts.ContextsAdded)
    Opts.ContextsAdded();
  if (Opts.PreInline)
    preInline(Flat, Image, Opts, Counter, St);
  // Each profile marked with whether the pre-inliner kept its context
  // (clang inlines those, as it does llvm-profgen's) and whether its code
  // was inlined there in the profiled binary; probe-based profiles also
  // carry each function's CFG checksum.
  StringMap<uint64_t> Hash;
  if (Opts.Probes)
    for (const ProbeFunctionDesc &D : Opts.Probes->descs())
      Hash[D.Name] = D.Hash;
  nestProfiles(
      Flat, Root,
      [&](uint32_t Base, uint32_t Suffix, const FlatProfiles::Node &N) {
        const SampleContextFrameVector &S = Flat.Suffixes.get(Suffix);
        NodeMarks M;
        if (Opts.Probes)
          M.FunctionHash = Hash.lookup(S.back().Func.stringRef());
        if (N.wasInlined() || S.size() > 1)
          M.Attributes |= ContextWasInlined;
        if (Opts.PreInline && (Base != Root || S.size() > 1)) {
          M.Attributes |= ContextShouldBeInlined;
          R.PreInlined = true;
        }
        return M;
      },
      R);
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
               "profiles (%s %llu, or callee over the size limit%s): %llu; "
               "context profiles: %llu; call sites without %s: %llu\n",
               (unsigned long long)S.Contexts,
               S.Budget ? "calls at or under the cold count"
                        : "calls under the hot count",
               (unsigned long long)S.HotCallCount,
               S.Budget ? ", or under the caller's call share, or past the "
                          "caller's growth budget"
                        : "",
               (unsigned long long)S.ContextsMoved,
               (unsigned long long)S.ContextProfiles,
               S.ProbeBased ? "a call probe" : "line info",
               (unsigned long long)S.CallSitesNoDebug);
  OS << format("  top-level profiles: %llu, total samples: %llu\n",
               (unsigned long long)S.TopLevel,
               (unsigned long long)S.TotalSamples);
}

} // namespace lbr2prof
