//===- LbrAggregator.cpp - counting branches and fall-through ranges ------===//
//
// The hot loop of lbr2prof: for each sample, map every entry's ends to Locs
// once, then count the taken branches and the ranges between consecutive
// entries in hash maps keyed by address pairs.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Aggregate/ReportCounts.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace lbr2prof::perfabi;

namespace lbr2prof {

/// Adds V's counts to C (saturating).
static void accumulate(BranchCount &C, const BranchCount &V) {
  C.Count = SaturatingAdd(C.Count, V.Count);
  C.Mispred = SaturatingAdd(C.Mispred, V.Mispred);
  C.Cycles = SaturatingAdd(C.Cycles, V.Cycles);
  C.Weight += V.Weight;
}
static void accumulate(RangeCount &C, const RangeCount &V) {
  C.Count = SaturatingAdd(C.Count, V.Count);
  C.Weight += V.Weight;
}

void RawProfile::merge(const RawProfile &O, unsigned Threads) {
  // The two largest maps are independent: with two threads, the ranges
  // merge beside the branches (each about 90k entries from bench/scale's
  // 20 MB broad recording: 0.03 s on one thread).
  auto MergeRanges = [&] {
    for (const auto &[K, V] : O.Ranges)
      accumulate(Ranges[K], V);
  };
  std::thread Other;
  if (Threads > 1 && O.Ranges.size() >= 4096)
    Other = std::thread(MergeRanges);
  else
    MergeRanges();
  for (const auto &[K, V] : O.Branches)
    accumulate(Branches[K], V);
  if (Other.joinable())
    Other.join();
  WeightedEntries += O.WeightedEntries;
  TotalWeight += O.TotalWeight;
  SamplesWithoutPeriod += O.SamplesWithoutPeriod;
  Contexts.merge(O.Contexts);
  for (const auto &[K, V] : O.Ips)
    Ips[K] = SaturatingAdd(Ips[K], V);
  for (const auto &[K, V] : O.SamplesPerDso)
    SamplesPerDso[K] = SaturatingAdd(SamplesPerDso[K], V);
  AggregateStats &S = Stats;
  const AggregateStats &T = O.Stats;
  S.Samples += T.Samples;
  S.SamplesFiltered += T.SamplesFiltered;
  S.SamplesNoBranches += T.SamplesNoBranches;
  S.Entries += T.Entries;
  S.EntriesZero += T.EntriesZero;
  S.EntriesExternal += T.EntriesExternal;
  S.EntriesWrongPath += T.EntriesWrongPath;
  S.DuplicateTop += T.DuplicateTop;
  S.Ranges += T.Ranges;
  S.RangesExternal += T.RangesExternal;
  S.RangesCrossDso += T.RangesCrossDso;
}

void RawProfile::scaleBy(double W) {
  for (auto &[K, C] : Branches) {
    C.Count = scaleCount(C.Count, W);
    C.Mispred = std::min(C.Count, scaleCount(C.Mispred, W));
    C.Cycles = scaleCount(C.Cycles, W);
    C.Weight = quantizeWeight(C.Weight * W);
  }
  for (auto &[K, C] : Ranges) {
    C.Count = scaleCount(C.Count, W);
    C.Weight = quantizeWeight(C.Weight * W);
  }
  for (auto &[K, N] : Ips)
    N = scaleCount(N, W);
  for (auto &[K, N] : SamplesPerDso)
    N = scaleCount(N, W);
  WeightedEntries = scaleCount(WeightedEntries, W);
  TotalWeight = quantizeWeight(TotalWeight * W);
  for (auto *Rows : {&Contexts.Branches, &Contexts.Ranges})
    for (auto &[K, C] : *Rows) {
      C.Count = scaleCount(C.Count, W);
      C.Weight = quantizeWeight(C.Weight * W);
    }
}

Loc renameDso(Loc L, const DenseMap<int, int> &OldToNew) {
  if (L == ExternalLoc)
    return L;
  auto It = OldToNew.find(locDso(L));
  return It == OldToNew.end() ? L : makeLoc(It->second, locOffset(L));
}

void RawProfile::renameDsos(const DenseMap<int, int> &OldToNew) {
  rekey([&](Loc L) { return renameDso(L, OldToNew); });
  DenseMap<int, uint64_t> PerDso;
  for (const auto &[K, V] : SamplesPerDso) {
    auto It = OldToNew.find(K);
    uint64_t &C = PerDso[It == OldToNew.end() ? K : It->second];
    C = SaturatingAdd(C, V);
  }
  SamplesPerDso = std::move(PerDso);
}

void RawProfile::rekey(function_ref<Loc(Loc)> Map) {
  // Re-key every count; keys that now collide are summed.
  RawProfile Renamed;
  Renamed.Stats = Stats;
  Renamed.WeightedEntries = WeightedEntries;
  Renamed.TotalWeight = TotalWeight;
  Renamed.SamplesWithoutPeriod = SamplesWithoutPeriod;
  Renamed.SamplesPerDso = std::move(SamplesPerDso);
  for (const auto &[K, V] : Branches)
    accumulate(Renamed.Branches[{Map(K.first), Map(K.second)}], V);
  for (const auto &[K, V] : Ranges)
    accumulate(Renamed.Ranges[{Map(K.first), Map(K.second)}], V);
  Renamed.Contexts = std::move(Contexts);
  Renamed.Contexts.rename(Map);
  for (const auto &[K, V] : Ips) {
    Loc L = Map(K);
    uint64_t &C = Renamed.Ips[L];
    C = SaturatingAdd(C, V);
  }
  *this = std::move(Renamed);
}

uint64_t RawProfile::estimate(double W, uint64_t Seen) const {
  if (!Seen)
    return 0;
  double V = W * scale();
  return V >= 1.8e19 ? ~0ULL : std::max<uint64_t>(1, uint64_t(V + 0.5));
}

Loc SampleCounter::locateUser(const ProcessMaps &Maps, uint32_t Pid,
                              uint64_t A) {
  // locate() found A in neither cached mapping.
  const Mapping *M = Maps.findUser(Pid, A);
  if (!M)
    return ExternalLoc;
  if (Pid == CachePid) {
    CacheNewest ^= 1;
  } else {
    CacheNewest = 0;
    CacheMap[1] = CachedMapping();
  }
  CachedMapping &C = CacheMap[CacheNewest];
  C = CachedMapping();
  // The addition needs every file offset of the mapping below 2^48, where
  // makeLoc would mask it (never so in a real file): else not cached.
  if (M->PgOff <= (1ULL << 48) && M->End - M->Start <= (1ULL << 48) - M->PgOff)
    C = {M->Start, M->End - M->Start,
         makeLoc(M->Dso, 0) + M->PgOff - M->Start};
  CachePid = Pid;
  return makeLoc(M->Dso, M->fileOffset(A));
}

Loc SampleCounter::locateKernel(const ProcessMaps &Maps, uint64_t A) {
  if (CacheKernelValid && A >= CacheKernel.Start && A < CacheKernel.End)
    return makeLoc(CacheKernel.Dso, CacheKernel.fileOffset(A));
  const Mapping *M = Maps.findKernel(A);
  if (!M)
    return ExternalLoc;
  CacheKernel = *M;
  CacheKernelValid = true;
  return makeLoc(M->Dso, M->fileOffset(A));
}

Loc SampleCounter::locateSlow(const ProcessMaps &Maps, uint32_t Pid,
                              uint64_t A, AddrMode Mode) {
  switch (Mode) {
  case AddrMode::User:
    return locateUser(Maps, Pid, A);
  case AddrMode::Kernel:
    return locateKernel(Maps, A);
  case AddrMode::Either:
    if (Loc L = locateUser(Maps, Pid, A))
      return L;
    return locateKernel(Maps, A);
  case AddrMode::None:
    break;
  }
  return ExternalLoc;
}

/// Three Locs to 64 bits: the products' top bits depend on every bit of
/// their Loc (they index the slots); the fold brings them down into the
/// low 32 (the slot's tag).
static uint64_t traceHash(const SampleCounter::TraceKey &K) {
  uint64_t H = K.From * 0x9e3779b97f4a7c15ULL + K.To * 0xc2b2ae3d27d4eb4fULL +
               K.Next * 0x165667b19e3779f9ULL;
  return H ^ (H >> 32);
}

// Inline in count(): a call costs more than the 1.3 probes of a lookup
// (Lua's CSSPGO recording: 18.4M lookups, 23.6M probes).
inline uint32_t SampleCounter::traceId(const TraceKey &K) {
  uint64_t H = traceHash(K);
  uint64_t Tag = H << 32;
  size_t Mask = TraceSlots.size() - 1;
  for (size_t I = size_t(H >> TraceShift);; I = (I + 1) & Mask) {
    uint64_t S = TraceSlots[I];
    if (!S)
      return addTrace(K, H, I);
    if ((S & ~0xffffffffULL) == Tag && Traces[uint32_t(S) - 1].Key == K)
      return uint32_t(S) - 1;
  }
}

uint32_t SampleCounter::addTrace(const TraceKey &K, uint64_t H, size_t Slot) {
  uint32_t Id = uint32_t(Traces.size());
  Traces.push_back({K, {}});
  if (Traces.size() * 2 > TraceSlots.size()) {
    growTraceSlots(); // places every trace, this one too
    return Id;
  }
  TraceSlots[Slot] = H << 32 | (uint64_t(Id) + 1);
  return Id;
}

void SampleCounter::growTraceSlots() {
  // From 2^MinTraceSlotsLog2 slots (as constructed), doubled when more
  // than half full.
  size_t Size = TraceSlots.size() * 2;
  TraceSlots.assign(Size, 0);
  TraceShift = 64 - unsigned(llvm::countr_zero(Size));
  size_t Mask = Size - 1;
  for (uint32_t Id = 0; Id < Traces.size(); ++Id) {
    uint64_t H = traceHash(Traces[Id].Key);
    size_t I = size_t(H >> TraceShift);
    while (TraceSlots[I])
      I = (I + 1) & Mask;
    TraceSlots[I] = H << 32 | (uint64_t(Id) + 1);
  }
}

void SampleCounter::count(const ProcessMaps &Maps, uint32_t Pid, uint64_t Ip,
                          AddrMode IpMode, uint64_t Period,
                          ArrayRef<BranchEntry> Br,
                          ArrayRef<ulittle64> Callchain) {
  AggregateStats &St = Profile.Stats;
  ++St.Samples;
  Loc IpLoc = locate(Maps, Pid, Ip, IpMode);
  ++Profile.Ips[IpLoc];
  ++Profile.SamplesPerDso[locDso(IpLoc)];
  if (Br.empty()) {
    ++St.SamplesNoBranches;
    return;
  }
  St.Entries += Br.size();
  // Skylake can repeat the newest entry. A genuine repeat (a short loop
  // taken twice) forms a short backward range; a bogus one does not.
  size_t First = 0;
  if (Br.size() >= 2 && Br[0].from() == Br[1].from() &&
      Br[0].to() == Br[1].to() &&
      (Br[0].to() > Br[0].from() ||
       Br[0].from() - Br[0].to() > Opts.DuplicateTopStride)) {
    First = 1;
    ++St.DuplicateTop;
  }
  size_t N = Br.size();
  From.resize(N);
  To.resize(N);
  TraceOf.resize(N);
  for (size_t I = First; I < N; ++I) {
    From[I] = locate(Maps, Pid, Br[I].from());
    To[I] = locate(Maps, Pid, Br[I].to());
  }
  // The window's span in code bytes: the fall-through runs between entries
  // and from the newest target to the sample IP. Implausible runs (another
  // DSO, the kernel, backwards) are replaced by the mean of the others.
  double Weight = 1;
  if (Opts.WindowWeighting) {
    uint64_t Span = 0, Good = 0, Runs = 0;
    auto run = [&](uint64_t B, uint64_t E) {
      ++Runs;
      if (E >= B && E - B < (1 << 16)) {
        Span += E - B + 4; // + the branch instruction itself, roughly
        ++Good;
      }
    };
    run(Br[First].to(), Ip);
    for (size_t I = First + 1; I < N; ++I)
      run(Br[I].to(), Br[I - 1].from());
    double W = Good ? double(Span) * Runs / Good : 0;
    // A branch execution is in the windows of about (instructions its
    // window spans) / period samples; each observation stands for the
    // inverse. Code bytes / 4 approximate instructions.
    if (!Period)
      ++Profile.SamplesWithoutPeriod;
    // No run measurable (every one crosses files or the kernel): an
    // assumed 32 bytes per run, about 8 instructions per taken branch.
    // Stateless, so a sample weighs the same whatever was read before it,
    // in this input or another, on this thread or another.
    if (W <= 0)
      W = 32.0 * double(Runs);
    Weight = quantizeWeight((Period ? 4.0 * double(Period) : 1.0) / W);
  }
  // One trace per entry: the branch, and the run from its target to the
  // next newer entry's source (if that entry is usable). One hash update
  // per entry; branches and ranges are split out in finalize().
  TraceCount *Last = nullptr;
  TraceKey LastKey;
  uint32_t LastId = 0;
  bool NewerUsable = false;
  for (size_t I = First; I < N; ++I) {
    const BranchEntry &E = Br[I];
    bool Usable = true;
    if (E.from() == 0 && E.to() == 0) {
      ++St.EntriesZero;
      Usable = false;
    } else if (E.spec() == 1) { // PERF_BR_SPEC_WRONG_PATH: never retired
      ++St.EntriesWrongPath;
      Usable = false;
    } else if (From[I] == ExternalLoc && To[I] == ExternalLoc) {
      ++St.EntriesExternal;
      // Still a valid neighbour: the run to the newer entry is counted
      // (and found external) in finalize() through a trace with no branch.
    }
    bool HasNext = I > First && NewerUsable;
    NewerUsable = Usable;
    TraceOf[I] = ~0u;
    if (!Usable)
      continue;
    TraceKey Key{From[I], To[I], HasNext ? From[I - 1] : NoNext};
    if (!Last || !(Key == LastKey)) {
      LastId = traceId(Key);
      LastKey = Key;
      // Valid until the next new trace, which comes with a new key.
      Last = &Traces[LastId].Counts;
    }
    TraceOf[I] = LastId;
    ++Last->Count;
    Last->Mispred += E.mispred();
    Last->Cycles += E.cycles();
    Last->Weight += Weight;
  }
  if (Opts.Contexts && !Callchain.empty())
    countContexts(Maps, Pid, Callchain, Br, First, Weight);
}

bool SampleCounter::inContextBinary(const ProcessMaps &Maps, Loc L) {
  if (L == ExternalLoc)
    return false;
  unsigned D = unsigned(locDso(L));
  if (D >= IsContextBinary.size())
    IsContextBinary.resize(Maps.dsos().size() > D ? Maps.dsos().size() : D + 1,
                           -1);
  int8_t &Known = IsContextBinary[D];
  if (Known < 0)
    Known = D < Maps.dsos().size() && Opts.Contexts->isBinary(Maps.dsos()[D]);
  return Known == 1;
}

SampleCounter::OracleAnswers &
SampleCounter::oracleAt(const TransferOracle &O, uint64_t Off, bool Site) {
  OracleAnswers &A = OracleMemo[Off];
  if (!Site && A.Kind < 0) {
    A.Kind = int8_t(O.kindAt(Off));
    if (A.Kind == TransferOracle::Call)
      A.ReturnOffset = O.returnOffsetOf(Off);
  }
  if (Site && A.ReturnSite < 0)
    A.ReturnSite = O.isReturnSite(Off);
  return A;
}

void SampleCounter::countContexts(const ProcessMaps &Maps, uint32_t Pid,
                                  ArrayRef<ulittle64> Chain,
                                  ArrayRef<BranchEntry> Br, size_t First,
                                  double Weight) {
  ContextCounts &CC = Profile.Contexts;
  // The user part of the chain follows the PERF_CONTEXT_USER marker (a
  // chain without markers is all user): the IP, then return addresses.
  size_t U = 0;
  bool Marker = false;
  for (size_t K = 0; K < Chain.size(); ++K)
    if (uint64_t(Chain[K]) >= PERF_CONTEXT_MAX) {
      Marker = true;
      if (uint64_t(Chain[K]) == PERF_CONTEXT_USER)
        U = K + 1;
    }
  if (Marker && U == 0)
    return; // kernel frames only
  if (U >= Chain.size())
    return;
  ++CC.Stats.Samples;
  // The context at the IP, built outermost first; a frame outside the
  // binary (or a marker) restarts it, so it holds the innermost run of the
  // binary's frames.
  size_t Begin = U + 1, End = Chain.size();
  if (Opts.MaxContextDepth && End - Begin > Opts.MaxContextDepth) {
    CC.Stats.DepthCut += End - Begin - Opts.MaxContextDepth;
    End = Begin + Opts.MaxContextDepth;
  }
  uint32_t Ctx =
      contextOfStack(Maps, Pid, Chain.slice(Begin, End - Begin), Marker);
  // Back in time through the branch stack (newest entry first).
  size_t I = First;
  for (; I < Br.size(); ++I) {
    const BranchEntry &E = Br[I];
    if ((E.from() == 0 && E.to() == 0) || E.spec() == 1) {
      ++CC.Stats.SamplesUnusable;
      break;
    }
    // Entries before an unusable one were usable, so TraceOf[I]'s run
    // ends at From[I - 1], the range this walk counts.
    const StepMemo &Last = Traces[TraceOf[I]].Last;
    if (Last.Ctx != Ctx)
      stepAt(Maps, Ctx, TraceOf[I], From[I], To[I]);
    Step &S = Steps[Last.Step];
    ++S.Count;
    S.Weight += Weight;
    if (Last.Mismatch)
      break;
    Ctx = Last.NewCtx;
  }
  if (I == Br.size())
    ++CC.Stats.SamplesWhole;
  else
    CC.Stats.EntriesLeft += Br.size() - I;
}

uint32_t SampleCounter::walkStack(const ProcessMaps &Maps, uint32_t Pid,
                                  ArrayRef<ulittle64> Frames, bool Marker) {
  ContextTrie &T = Profile.Contexts.Trie;
  uint32_t Ctx = ContextTrie::Root;
  for (size_t K = Frames.size(); K > 0; --K) {
    uint64_t R = Frames[K - 1];
    Loc L = R >= PERF_CONTEXT_MAX
                ? ExternalLoc
                : locate(Maps, Pid, R,
                         Marker ? AddrMode::User : AddrMode::Either);
    Ctx = inContextBinary(Maps, L) ? T.child(Ctx, L) : ContextTrie::Root;
  }
  return Ctx;
}

uint32_t SampleCounter::contextOfStack(const ProcessMaps &Maps, uint32_t Pid,
                                       ArrayRef<ulittle64> Frames,
                                       bool Marker) {
  if (Maps.version() != StacksVersion || StackFrames.size() > StackMemoFrames) {
    Stacks.clear();
    StackFrames.clear();
    StacksVersion = Maps.version();
  }
  // Four chains over every fourth frame, folded at the end: one chain
  // through all of a stack's frames (Lua's: about 25) was a serial
  // multiply per frame.
  constexpr uint64_t Mul = 0xff51afd7ed558ccdULL;
  uint64_t L[4] = {hashMix(Pid, Marker), Frames.size(), 0x9e3779b97f4a7c15ULL,
                   0xc2b2ae3d27d4eb4fULL};
  size_t K = 0;
  for (; K + 4 <= Frames.size(); K += 4)
    for (unsigned J = 0; J < 4; ++J)
      L[J] = (L[J] ^ uint64_t(Frames[K + J])) * Mul;
  for (; K < Frames.size(); ++K)
    L[K & 3] = (L[K & 3] ^ uint64_t(Frames[K])) * Mul;
  uint64_t H = hashMix(hashMix(hashMix(L[0], L[1]), L[2]), L[3]);
  H >>= 1; // never DenseMap's empty or tombstone key
  auto [It, New] = Stacks.try_emplace(H);
  if (!New) {
    const StackMemo &M = It->second;
    if (M.Pid == Pid && M.Marker == Marker && M.Len == Frames.size() &&
        std::equal(Frames.begin(), Frames.end(),
                   StackFrames.begin() + M.First,
                   [](uint64_t A, uint64_t B) { return A == B; }))
      return M.Ctx;
    return walkStack(Maps, Pid, Frames, Marker); // another stack, same hash
  }
  StackMemo &M = It->second;
  M.Pid = Pid;
  M.Marker = Marker;
  M.Len = uint32_t(Frames.size());
  M.First = StackFrames.size();
  M.Ctx = walkStack(Maps, Pid, Frames, Marker);
  StackFrames.insert(StackFrames.end(), Frames.begin(), Frames.end());
  return M.Ctx;
}

void SampleCounter::stepAt(const ProcessMaps &Maps, uint32_t Ctx, uint32_t Id,
                           Loc From, Loc To) {
  if (Traces[Id].Prev.Ctx == Ctx) {
    std::swap(Traces[Id].Last, Traces[Id].Prev);
    return;
  }
  auto [It, New] =
      StepIndex.try_emplace(uint64_t(Ctx) << 32 | Id, uint32_t(Steps.size()));
  if (New)
    Steps.push_back(unwindStep(Maps, Ctx, From, To));
  const Step &S = Steps[It->second];
  Trace &T = Traces[Id];
  T.Prev = T.Last;
  T.Last = {Ctx, It->second, S.NewCtx, S.Mismatch};
}

SampleCounter::Step SampleCounter::unwindStep(const ProcessMaps &Maps,
                                              uint32_t Ctx, Loc From, Loc To) {
  // Undo the branch: a call pops the frame it made (which must be the one
  // on top; at the root the caller is unknown and stays so), a return
  // pushes the frame it left. A branch into the binary from outside that
  // lands after a call is a return too (from libc, say). A return to
  // outside the binary (_init returning to libc) leaves a function whose
  // caller is outside: the root, as frames outside the binary cut the call
  // stack.
  ContextTrie &T = Profile.Contexts.Trie;
  const TransferOracle &O = *Opts.Contexts;
  Step S;
  bool FromIn = inContextBinary(Maps, From);
  bool ToIn = inContextBinary(Maps, To);
  OracleAnswers FromAns; // a copy: the memo may grow below
  if (FromIn)
    FromAns = oracleAt(O, locOffset(From), false);
  TransferOracle::Kind K =
      FromIn ? TransferOracle::Kind(FromAns.Kind) : TransferOracle::Other;
  if (K == TransferOracle::Call) {
    if (Ctx != ContextTrie::Root) {
      Loc Ret = makeLoc(unsigned(locDso(From)), FromAns.ReturnOffset);
      if (T.ret(Ctx) != Ret) {
        S.Mismatch = true;
        return S;
      }
      Ctx = T.parent(Ctx);
    }
  } else if (K == TransferOracle::Return ||
             (!FromIn && ToIn && oracleAt(O, locOffset(To), true).ReturnSite)) {
    if (!ToIn) {
      Ctx = ContextTrie::Root;
    } else {
      if (Opts.MaxContextDepth && T.depth(Ctx) >= Opts.MaxContextDepth) {
        Ctx = T.dropOutermost(Ctx);
        S.DepthCut = true;
      }
      Ctx = T.child(Ctx, To);
    }
  }
  S.NewCtx = Ctx;
  return S;
}

void SampleCounter::finalize() {
  AggregateStats &St = Profile.Stats;
  // The unwinding steps: the range before each in its context, the branch
  // in the context after it.
  ContextCounts &CC = Profile.Contexts;
  auto add = [](ContextCount &C, const Step &S) {
    C.Count += S.Count;
    C.Weight += S.Weight;
  };
  for (const auto &[Key, Index] : StepIndex) {
    const Step &S = Steps[Index];
    uint32_t Ctx = uint32_t(Key >> 32);
    const TraceKey &K = Traces[uint32_t(Key)].Key;
    if (K.Next != NoNext && K.To != ExternalLoc && K.Next != ExternalLoc)
      add(CC.Ranges[{Ctx, K.To, K.Next}], S);
    if (S.Mismatch) {
      CC.Stats.SamplesMismatch += S.Count;
      continue;
    }
    if (S.DepthCut)
      CC.Stats.DepthCut += S.Count;
    add(CC.Branches[{S.NewCtx, K.From, K.To}], S);
    CC.Stats.Entries += S.Count;
  }
  Steps.clear();
  StepIndex.clear();
  for (const Trace &Tr : Traces) {
    const TraceKey &K = Tr.Key;
    const TraceCount &T = Tr.Counts;
    if (K.From != ExternalLoc || K.To != ExternalLoc) {
      accumulate(Profile.Branches[{K.From, K.To}],
                 BranchCount{T.Count, T.Mispred, T.Cycles, T.Weight});
      Profile.WeightedEntries += T.Count;
      Profile.TotalWeight += T.Weight;
    }
    if (K.Next == NoNext)
      continue;
    St.Ranges += T.Count;
    if (K.To == ExternalLoc || K.Next == ExternalLoc) {
      St.RangesExternal += T.Count;
      continue;
    }
    if (locDso(K.To) != locDso(K.Next)) {
      St.RangesCrossDso += T.Count;
      continue;
    }
    accumulate(Profile.Ranges[{K.To, K.Next}], RangeCount{T.Count, T.Weight});
  }
  decltype(Traces)().swap(Traces);
  TraceSlots.assign(size_t(1) << MinTraceSlotsLog2, 0);
  TraceShift = 64 - MinTraceSlotsLog2;
}

void SampleCounter::countIfSelected(const ProcessMaps &Maps,
                                    const Sample &S) {
  if (!Opts.Pids.empty() && !Opts.Pids.count(S.Ident.Pid)) {
    ++Profile.Stats.Samples;
    ++Profile.Stats.SamplesFiltered;
    return;
  }
  count(Maps, S.Ident.Pid, S.Ip, addrModeOf(S.Misc), S.Period, S.Branches,
        S.Callchain);
}

/// Samples in a batch. A raw record stays in the reader's window, which
/// the batch keeps alive until a thread has counted it: with up to six
/// batches queued or in hand, 2048 records of 32 branches (1.6 MB a batch)
/// kept 4 MB windows alive by the handful; 512 cost nothing measurable in
/// time on bench/scale's 20 MB broad row. 256, chosen on jq's and Lua's
/// line and probe profiles and that row (512 / 256 / 128: jq 21.6-21.7 /
/// 19.9-20.1 / 20.0-20.6 MB, Lua 21.0 / 19.0 / 19.0 MB, the same times
/// within 0.01 s), measured on the other four programs of bench/pgo in
/// bench/scale/README.md.
static constexpr size_t BatchSamples = 256;

/// Samples for a worker, with the maps they need: raw SAMPLE records still
/// in the reader's buffers (kept alive here), or samples decoded and copied
/// when their bytes live in a reused buffer.
struct LbrAggregator::Batch {
  struct Copied {
    uint32_t Pid;
    uint32_t N;
    uint64_t Ip;
    uint64_t Period;
    size_t First;
    /// The call chain: Chains[ChainFirst, + ChainN).
    size_t ChainFirst;
    uint32_t ChainN;
    AddrMode IpMode;
  };
  struct Raw {
    const uint8_t *Bytes;
    uint16_t Size;
    unsigned Attr;
    uint64_t FileOffset, Index;
  };
  std::shared_ptr<const ProcessMaps> Maps;
  std::vector<Copied> Samples;
  std::vector<BranchEntry> Entries;
  std::vector<ulittle64> Chains;
  std::vector<Raw> Records;
  std::vector<std::shared_ptr<WindowBytes>> Windows;
  std::vector<SampleDecoder> Decoders;
  std::shared_ptr<const std::string> Input;
  size_t size() const { return Samples.size() + Records.size(); }
  void clear() {
    Maps.reset();
    Samples.clear();
    Entries.clear();
    Chains.clear();
    Records.clear();
    Windows.clear();
  }
};

/// Counts a batch; the first malformed record is reported in Err.
static void countBatch(const LbrAggregator::Batch &B, SampleCounter &C,
                       std::string &Err) {
  C.invalidate();
  for (const auto &S : B.Samples)
    C.count(*B.Maps, S.Pid, S.Ip, S.IpMode, S.Period,
            ArrayRef<BranchEntry>(B.Entries.data() + S.First, S.N),
            ArrayRef<ulittle64>(B.Chains.data() + S.ChainFirst, S.ChainN));
  Sample S;
  std::string Why;
  for (const auto &R : B.Records) {
    S = Sample();
    if (!B.Decoders[R.Attr].decode(ArrayRef<uint8_t>(R.Bytes, R.Size), R.Attr,
                                   S, Why)) {
      if (Err.empty()) {
        InputLocation L;
        L.File = B.Input ? *B.Input : "";
        L.Offset = R.FileOffset;
        L.Record = R.Index;
        L.RecordKind = "SAMPLE";
        Err = L.str() + ": " + Why;
      }
      continue;
    }
    C.countIfSelected(*B.Maps, S);
  }
}

/// Worker threads with a bounded queue of batches and a pool of free ones.
class LbrAggregator::Workers {
public:
  Workers(unsigned N, const AggregateOptions &Opts) {
    for (unsigned K = 0; K < N; ++K)
      Counters.push_back(std::make_unique<SampleCounter>(Opts));
    for (unsigned K = 0; K < N; ++K)
      Threads.emplace_back([this, K] { work(*Counters[K]); });
  }
  ~Workers() { stop(); }

  std::unique_ptr<Batch> take() {
    std::unique_lock<std::mutex> L(M);
    if (Free.empty())
      return std::make_unique<Batch>();
    std::unique_ptr<Batch> B = std::move(Free.back());
    Free.pop_back();
    return B;
  }
  /// Queues B, or hands it back when the queue is full: the reading
  /// thread then counts it itself instead of waiting.
  std::unique_ptr<Batch> push(std::unique_ptr<Batch> B) {
    std::unique_lock<std::mutex> L(M);
    if (Queue.size() >= 2 * Threads.size() + 1)
      return B;
    Queue.push_back(std::move(B));
    NotEmpty.notify_one();
    return nullptr;
  }
  void recycle(std::unique_ptr<Batch> B) {
    B->clear();
    std::unique_lock<std::mutex> L(M);
    Free.push_back(std::move(B));
  }
  /// Counts B into the reading thread's counter Main on the calling
  /// thread and hands B back; a malformed record goes to Err.
  void countHere(std::unique_ptr<Batch> B, SampleCounter &Main,
                 std::string &Err) {
    countBatch(*B, Main, Err);
    Main.invalidate();
    recycle(std::move(B));
  }
  void stop() {
    {
      std::unique_lock<std::mutex> L(M);
      Done = true;
      NotEmpty.notify_all();
    }
    for (std::thread &T : Threads)
      if (T.joinable())
        T.join();
  }
  /// The end of the input: the calling thread counts queued batches into
  /// Main alongside the workers instead of waiting for them, then
  /// finalizes Main while each worker finalizes its own counter before it
  /// exits (the workers' tails and finalizing were a serial 0.05 s of the
  /// 0.14 s read of bench/scale's 20 MB broad recording).
  void finish(SampleCounter &Main) {
    std::string Err;
    while (true) {
      std::unique_ptr<Batch> B;
      {
        std::unique_lock<std::mutex> L(M);
        if (Queue.empty())
          break;
        B = std::move(Queue.front());
        Queue.pop_front();
      }
      countHere(std::move(B), Main, Err);
    }
    if (!Err.empty())
      noteError(Err);
    {
      std::unique_lock<std::mutex> L(M);
      Done = Finalize = true;
      NotEmpty.notify_all();
    }
    Main.finalize();
    stop();
  }
  std::vector<std::unique_ptr<SampleCounter>> Counters;
  /// The first malformed record a worker found (guarded by M).
  std::string Error;
  void noteError(const std::string &E) {
    std::unique_lock<std::mutex> L(M);
    if (Error.empty())
      Error = E;
  }

private:
  void work(SampleCounter &C) {
    std::string Err;
    while (true) {
      std::unique_ptr<Batch> B;
      {
        std::unique_lock<std::mutex> L(M);
        NotEmpty.wait(L, [&] { return Done || !Queue.empty(); });
        if (Queue.empty()) {
          if (!Err.empty() && Error.empty())
            Error = Err;
          if (Finalize) {
            L.unlock();
            C.finalize();
          }
          return;
        }
        B = std::move(Queue.front());
        Queue.pop_front();
      }
      countBatch(*B, C, Err);
      recycle(std::move(B));
    }
  }
  std::mutex M;
  std::condition_variable NotEmpty;
  std::deque<std::unique_ptr<Batch>> Queue;
  std::vector<std::unique_ptr<Batch>> Free;
  std::vector<std::thread> Threads;
  bool Done = false;
  /// Set by finish(): the workers finalize their counters as they exit.
  bool Finalize = false;
};

LbrAggregator::LbrAggregator(AggregateOptions O)
    : Opts(std::move(O)), Maps(std::make_shared<ProcessMaps>()), Main(Opts) {
  // The reading thread counts too (when the workers are behind), so N
  // threads means N - 1 workers.
  if (Opts.Threads > 1) {
    Pool = std::make_unique<Workers>(Opts.Threads - 1, Opts);
    Current = Pool->take();
  }
}

LbrAggregator::~LbrAggregator() = default;

ProcessMaps &LbrAggregator::mutableMaps() {
  flushBatch();
  if (Maps.use_count() > 1)
    Maps = std::make_shared<ProcessMaps>(*Maps);
  Main.invalidate();
  return *Maps;
}

void LbrAggregator::flushBatch() {
  if (!Pool || Current->size() == 0)
    return;
  Current->Maps = Maps;
  if (std::unique_ptr<Batch> Back = Pool->push(std::move(Current))) {
    std::string Err;
    Pool->countHere(std::move(Back), Main, Err);
    if (!Err.empty())
      Pool->noteError(Err);
  }
  Current = Pool->take();
}

Error LbrAggregator::finish() {
  if (!Pool) {
    Main.finalize();
    return Error::success();
  }
  flushBatch();
  Pool->finish(Main);
  for (auto &C : Pool->Counters)
    Main.Profile.merge(C->Profile, Opts.Threads);
  std::string Err = Pool->Error;
  Pool.reset();
  if (!Err.empty())
    return createStringError(inconvertibleErrorCode(), Err);
  return Error::success();
}

void LbrAggregator::startNewInput() { mutableMaps().clearProcesses(); }

Error LbrAggregator::onSample(const Sample &S, const RecordInfo &) {
  uint32_t Pid = S.Ident.Pid;
  if (!Opts.Pids.empty() && !Opts.Pids.count(Pid)) {
    ++Main.Profile.Stats.Samples;
    ++Main.Profile.Stats.SamplesFiltered;
    return Error::success();
  }
  AddrMode IpMode = addrModeOf(S.Misc);
  if (!Pool) {
    Main.count(*Maps, Pid, S.Ip, IpMode, S.Period, S.Branches, S.Callchain);
    return Error::success();
  }
  // Copied, call chain included: a worker counts it as the reading thread
  // would, so the result does not depend on the number of threads.
  Batch &B = *Current;
  B.Samples.push_back({Pid, uint32_t(S.Branches.size()), S.Ip, S.Period,
                       B.Entries.size(), B.Chains.size(),
                       uint32_t(S.Callchain.size()), IpMode});
  B.Entries.insert(B.Entries.end(), S.Branches.begin(), S.Branches.end());
  B.Chains.insert(B.Chains.end(), S.Callchain.begin(), S.Callchain.end());
  if (B.size() >= BatchSamples)
    flushBatch();
  return Error::success();
}

Error LbrAggregator::onRawSample(const RecordInfo &R, unsigned AttrIndex,
                                 const SampleDecoder &D) {
  Batch &B = *Current;
  if (!R.Window) {
    // The bytes live in a reused buffer: decode and copy now.
    Sample S;
    std::string Why;
    if (!D.decode(R.Bytes, AttrIndex, S, Why)) {
      InputLocation L;
      L.File = InputName;
      L.Offset = R.FileOffset;
      L.Record = R.Index;
      L.RecordKind = "SAMPLE";
      return inputError(L, Why);
    }
    return onSample(S, R);
  }
  if (B.Windows.empty() || B.Windows.back() != *R.Window)
    B.Windows.push_back(*R.Window);
  if (B.Decoders.size() <= AttrIndex)
    B.Decoders.resize(AttrIndex + 1);
  B.Decoders[AttrIndex] = D;
  if (!B.Input || *B.Input != InputName)
    B.Input = std::make_shared<const std::string>(InputName);
  B.Records.push_back({R.Bytes.data(), uint16_t(R.Bytes.size()), AttrIndex,
                       R.FileOffset, R.Index});
  if (B.size() >= BatchSamples)
    flushBatch();
  return Error::success();
}

void LbrAggregator::importRaw(RawProfile &&Counts, ArrayRef<DsoInfo> Files,
                              ReportCounts *Report) {
  ProcessMaps &M = mutableMaps();
  DenseMap<int, int> Index;
  for (int D = 0; D < int(Files.size()); ++D) {
    int New = int(M.dsoIndex(Files[D].Path, Files[D].BuildId));
    if (New != D)
      Index[D] = New;
  }
  if (!Index.empty()) {
    Counts.renameDsos(Index);
    if (Report)
      rekeyReportCounts(*Report,
                        [&](Loc L) { return renameDso(L, Index); });
  }
  Main.Profile.merge(Counts);
}

void LbrAggregator::addExactBranch(uint32_t Pid, uint64_t From, uint64_t To,
                                   uint64_t Count) {
  RawProfile &Profile = Main.Profile;
  Loc F = Main.locate(*Maps, Pid, From), T = Main.locate(*Maps, Pid, To);
  if (F == ExternalLoc && T == ExternalLoc)
    return;
  accumulate(Profile.Branches[{F, T}], BranchCount{Count, 0, 0, double(Count)});
  Profile.WeightedEntries += Count;
  Profile.TotalWeight += double(Count);
}

void LbrAggregator::addExactRange(uint32_t Pid, uint64_t Begin, uint64_t End,
                                  uint64_t Count) {
  RawProfile &Profile = Main.Profile;
  Loc B = Main.locate(*Maps, Pid, Begin), E = Main.locate(*Maps, Pid, End);
  if (B == ExternalLoc || E == ExternalLoc || locDso(B) != locDso(E))
    return;
  accumulate(Profile.Ranges[{B, E}], RangeCount{Count, double(Count)});
  ++Profile.SamplesPerDso[locDso(B)];
}

Error LbrAggregator::onMmap(const MmapEvent &E, const RecordInfo &) {
  if (E.isExecutable())
    mutableMaps().addMmap(E);
  return Error::success();
}

Error LbrAggregator::onComm(const CommEvent &E, const RecordInfo &) {
  if (E.isExec())
    mutableMaps().exec(E.Pid);
  return Error::success();
}

Error LbrAggregator::onTask(const TaskEvent &E, const RecordInfo &) {
  if (E.IsFork && E.Pid != E.PPid)
    mutableMaps().fork(E.Pid, E.PPid);
  return Error::success();
}

static void printLoc(raw_ostream &OS, Loc L, const ProcessMaps &Maps) {
  if (L == ExternalLoc) {
    OS << "[external]";
    return;
  }
  OS << Maps.dsos()[locDso(L)].Path << ':' << format_hex(locOffset(L), 0);
}

/// Prints "Tag from to <counts>" lines of a map keyed by Loc pairs, sorted.
template <typename MapT, typename CountsFn>
static void printPairs(raw_ostream &OS, char Tag, const MapT &Map,
                       const ProcessMaps &Maps, CountsFn Counts) {
  std::vector<std::pair<std::pair<Loc, Loc>, typename MapT::mapped_type>> V(
      Map.begin(), Map.end());
  std::sort(V.begin(), V.end(),
            [](auto &X, auto &Y) { return X.first < Y.first; });
  for (auto &[K, C] : V) {
    OS << Tag << ' ';
    printLoc(OS, K.first, Maps);
    OS << ' ';
    printLoc(OS, K.second, Maps);
    Counts(C);
    OS << '\n';
  }
}

void printSamplesPerDso(const DenseMap<int, uint64_t> &PerDso,
                        const ProcessMaps &Maps, raw_ostream &OS) {
  std::vector<std::pair<int, uint64_t>> Dsos(PerDso.begin(), PerDso.end());
  std::sort(Dsos.begin(), Dsos.end(), [](auto &A, auto &B) {
    return A.second != B.second ? A.second > B.second : A.first < B.first;
  });
  for (auto &[D, N] : Dsos)
    OS << format("  %12" PRIu64 "  %s\n", N,
                 D < 0 ? "[unknown]" : Maps.dsos()[D].Path.c_str());
}

void printRawProfile(const RawProfile &P, const ProcessMaps &Maps,
                     raw_ostream &OS) {
  printPairs(OS, 'B', P.Branches, Maps, [&](const BranchCount &C) {
    OS << ' ' << C.Count << ' ' << C.Mispred << ' ' << P.estimate(C.Weight, C.Count);
  });
  printPairs(OS, 'R', P.Ranges, Maps, [&](const RangeCount &C) {
    OS << ' ' << C.Count << ' ' << P.estimate(C.Weight, C.Count);
  });
  // Calling contexts: "C" and the context's return addresses (outermost
  // first), then its branches and ranges, indented (entry counts).
  P.Contexts.print(OS, [&](raw_ostream &O, Loc L) { printLoc(O, L, Maps); });
}

} // namespace lbr2prof
