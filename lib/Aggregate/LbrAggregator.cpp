//===- LbrAggregator.cpp - counting branches and fall-through ranges ------===//
//
// The hot loop of lbr2prof: for each sample, map every entry's ends to Locs
// once, then count the taken branches and the ranges between consecutive
// entries in hash maps keyed by address pairs.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "llvm/Support/Format.h"
#include <algorithm>

using namespace llvm;
using namespace lbr2prof::perfabi;

namespace lbr2prof {

static uint64_t satAdd(uint64_t A, uint64_t B) {
  uint64_t C = A + B;
  return C < A ? ~0ULL : C;
}

void RawProfile::merge(const RawProfile &O) {
  for (const auto &[K, V] : O.Branches) {
    BranchCount &C = Branches[K];
    C.Count = satAdd(C.Count, V.Count);
    C.Mispred = satAdd(C.Mispred, V.Mispred);
    C.Cycles = satAdd(C.Cycles, V.Cycles);
    C.Weight += V.Weight;
  }
  for (const auto &[K, V] : O.Ranges) {
    RangeCount &C = Ranges[K];
    C.Count = satAdd(C.Count, V.Count);
    C.Weight += V.Weight;
  }
  WeightedEntries += O.WeightedEntries;
  TotalWeight += O.TotalWeight;
  for (const auto &[K, V] : O.Ips)
    Ips[K] = satAdd(Ips[K], V);
  for (const auto &[K, V] : O.SamplesPerDso)
    SamplesPerDso[K] = satAdd(SamplesPerDso[K], V);
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

uint64_t RawProfile::estimate(double W) const {
  double V = W * scale();
  return V >= 1.8e19 ? ~0ULL : uint64_t(V + 0.5);
}

Loc LbrAggregator::locate(uint32_t Pid, uint64_t A) const {
  if (CacheValid && Pid == CachePid && A >= CacheMap.Start &&
      A < CacheMap.End)
    return makeLoc(CacheMap.Dso, CacheMap.fileOffset(A));
  const Mapping *M = Maps.find(Pid, A);
  if (!M)
    return ExternalLoc;
  CachePid = Pid;
  CacheMap = *M;
  CacheValid = true;
  return makeLoc(M->Dso, M->fileOffset(A));
}

void LbrAggregator::addExactBranch(uint32_t Pid, uint64_t From, uint64_t To,
                                   uint64_t Count) {
  Loc F = locate(Pid, From), T = locate(Pid, To);
  if (F == ExternalLoc && T == ExternalLoc)
    return;
  BranchCount &C = Profile.Branches[{F, T}];
  C.Count += Count;
  C.Weight += double(Count);
  Profile.WeightedEntries += Count;
  Profile.TotalWeight += double(Count);
}

void LbrAggregator::addExactRange(uint32_t Pid, uint64_t Begin, uint64_t End,
                                  uint64_t Count) {
  Loc B = locate(Pid, Begin), E = locate(Pid, End);
  if (B == ExternalLoc || E == ExternalLoc || locDso(B) != locDso(E))
    return;
  RangeCount &C = Profile.Ranges[{B, E}];
  C.Count += Count;
  C.Weight += double(Count);
  ++Profile.SamplesPerDso[locDso(B)];
}

Error LbrAggregator::onMmap(const MmapEvent &E, const RecordInfo &) {
  Maps.addMmap(E);
  CacheValid = false;
  return Error::success();
}

Error LbrAggregator::onComm(const CommEvent &E, const RecordInfo &) {
  if (E.isExec()) {
    Maps.exec(E.Pid);
    CacheValid = false;
  }
  return Error::success();
}

Error LbrAggregator::onTask(const TaskEvent &E, const RecordInfo &) {
  if (E.IsFork)
    Maps.fork(E.Pid, E.PPid);
  return Error::success();
}

Error LbrAggregator::onSample(const Sample &S, const RecordInfo &) {
  AggregateStats &St = Profile.Stats;
  ++St.Samples;
  uint32_t Pid = S.Ident.Pid;
  if (!Opts.Pids.empty() && !Opts.Pids.count(Pid)) {
    ++St.SamplesFiltered;
    return Error::success();
  }
  Loc Ip = locate(Pid, S.Ip);
  ++Profile.Ips[Ip];
  ++Profile.SamplesPerDso[locDso(Ip)];
  ArrayRef<BranchEntry> Br = S.Branches;
  if (Br.empty()) {
    ++St.SamplesNoBranches;
    return Error::success();
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
  for (size_t I = First; I < N; ++I) {
    From[I] = locate(Pid, Br[I].from());
    To[I] = locate(Pid, Br[I].to());
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
    run(Br[First].to(), S.Ip);
    for (size_t I = First + 1; I < N; ++I)
      run(Br[I].to(), Br[I - 1].from());
    double W = Good ? double(Span) * Runs / Good : 0;
    Weight = W > 0 ? 1.0 / W : 0;
    if (Weight == 0) {
      Weight = Profile.WeightedEntries
                   ? Profile.TotalWeight / double(Profile.WeightedEntries)
                   : 1.0;
    }
  }
  for (size_t I = First; I < N; ++I) {
    const BranchEntry &E = Br[I];
    if (E.from() == 0 && E.to() == 0) {
      ++St.EntriesZero;
      continue;
    }
    if (E.spec() == 1) { // PERF_BR_SPEC_WRONG_PATH: never retired
      ++St.EntriesWrongPath;
      continue;
    }
    if (From[I] == ExternalLoc && To[I] == ExternalLoc) {
      ++St.EntriesExternal;
      continue;
    }
    BranchCount &C = Profile.Branches[{From[I], To[I]}];
    ++C.Count;
    C.Mispred += E.mispred();
    C.Cycles += E.cycles();
    C.Weight += Weight;
    ++Profile.WeightedEntries;
    Profile.TotalWeight += Weight;
  }
  // Ranges between consecutive entries: [to of older, from of newer].
  for (size_t I = First + 1; I < N; ++I) {
    if ((Br[I].from() == 0 && Br[I].to() == 0) ||
        (Br[I - 1].from() == 0 && Br[I - 1].to() == 0))
      continue;
    ++St.Ranges;
    Loc Begin = To[I], End = From[I - 1];
    if (Begin == ExternalLoc || End == ExternalLoc) {
      ++St.RangesExternal;
      continue;
    }
    if (locDso(Begin) != locDso(End)) {
      ++St.RangesCrossDso;
      continue;
    }
    RangeCount &RC = Profile.Ranges[{Begin, End}];
    ++RC.Count;
    RC.Weight += Weight;
  }
  return Error::success();
}

static void printLoc(raw_ostream &OS, Loc L, const ProcessMaps &Maps) {
  if (L == ExternalLoc) {
    OS << "[external]";
    return;
  }
  OS << Maps.dsos()[locDso(L)].Path << ':' << format_hex(locOffset(L), 0);
}

void printRawProfile(const RawProfile &P, const ProcessMaps &Maps,
                     raw_ostream &OS) {
  std::vector<std::pair<std::pair<Loc, Loc>, BranchCount>> B(
      P.Branches.begin(), P.Branches.end());
  std::sort(B.begin(), B.end(),
            [](auto &X, auto &Y) { return X.first < Y.first; });
  for (auto &[K, C] : B) {
    OS << "B ";
    printLoc(OS, K.first, Maps);
    OS << ' ';
    printLoc(OS, K.second, Maps);
    OS << ' ' << C.Count << ' ' << C.Mispred << ' ' << P.estimate(C.Weight)
       << '\n';
  }
  std::vector<std::pair<std::pair<Loc, Loc>, RangeCount>> R(P.Ranges.begin(),
                                                            P.Ranges.end());
  std::sort(R.begin(), R.end(),
            [](auto &X, auto &Y) { return X.first < Y.first; });
  for (auto &[K, C] : R) {
    OS << "R ";
    printLoc(OS, K.first, Maps);
    OS << ' ';
    printLoc(OS, K.second, Maps);
    OS << ' ' << C.Count << ' ' << P.estimate(C.Weight) << '\n';
  }
}

} // namespace lbr2prof
