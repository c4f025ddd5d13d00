//===- Collect.cpp - per-block cycles and block chains from branch stacks -===//
//
// The report's own counting, beside the LbrAggregator's: it sees every
// sample right after the aggregator has counted it, locates the entries
// through the same process maps, and counts (block, cycles) pairs and
// chains of consecutive blocks. Keys are fixed-size and the scratch arrays
// are reused, so a sample allocates nothing once the maps have grown.
//
//   entries, newest first:  [0] from0->to0   [1] from1->to1   [2] from2->to2
//   blocks:                 [to1, from0] (cycles of [0]),
//                           [to2, from1] (cycles of [1]), ...
//   a chain of 2 blocks, oldest first: [to2, from1] -> [to1, from0]
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/PerfData/PerfABI.h"
#include "lbr2prof/Report/Report.h"
#include "lbr2prof/Support/Hash.h"
#include <cstring>

using namespace llvm;

namespace lbr2prof {

ReportCollector::ReportCollector(LbrAggregator &Agg,
                                 const AggregateOptions &Opts,
                                 unsigned PathLength, bool CollectStacks)
    : Agg(Agg), Opts(Opts), PathLength(PathLength),
      CollectStacks(CollectStacks) {
  assert(PathLength >= 1 && PathLength <= MaxPathLength);
  Counts.PathLength = PathLength;
}

Error ReportCollector::onMmap(const MmapEvent &E, const RecordInfo &R) {
  return Agg.onMmap(E, R);
}
Error ReportCollector::onComm(const CommEvent &E, const RecordInfo &R) {
  return Agg.onComm(E, R);
}
Error ReportCollector::onTask(const TaskEvent &E, const RecordInfo &R) {
  return Agg.onTask(E, R);
}

uint32_t ReportCollector::StackTrie::child(uint32_t P, Loc L) {
  auto [It, New] = Children.try_emplace({P, L}, uint32_t(Parent.size()));
  if (New) {
    Parent.push_back(P);
    Frame.push_back(L);
    Self.push_back(0);
  }
  return It->second;
}

Error ReportCollector::onSample(const Sample &S, const RecordInfo &R) {
  if (Error E = Agg.onSample(S, R))
    return E;
  if (!Opts.Pids.empty() && !Opts.Pids.count(S.Ident.Pid))
    return Error::success();
  const ProcessMaps &Maps = Agg.maps();
  auto locate = [&](uint64_t A, AddrMode Mode = AddrMode::Either) -> Loc {
    const Mapping *M = Maps.find(S.Ident.Pid, A, Mode);
    return M ? makeLoc(M->Dso, M->fileOffset(A)) : ExternalLoc;
  };
  if (CollectStacks && !S.Callchain.empty()) {
    // Innermost first; a context marker says where the next addresses
    // are, and the first address after it is that context's IP (the
    // others are return addresses, located in their call instruction).
    Frames.clear();
    AddrMode Mode = AddrMode::Either;
    bool First = true;
    for (uint64_t A : S.Callchain) {
      if (A >= perfabi::PERF_CONTEXT_MAX) {
        Mode = A == perfabi::PERF_CONTEXT_USER     ? AddrMode::User
               : A == perfabi::PERF_CONTEXT_KERNEL ? AddrMode::Kernel
                                                   : AddrMode::None;
        First = true;
        continue;
      }
      if (Mode == AddrMode::None)
        continue;
      Frames.push_back(locate(First || A == 0 ? A : A - 1, Mode));
      First = false;
    }
    if (!Frames.empty()) {
      uint32_t N = 0;
      for (size_t I = Frames.size(); I > 0; --I)
        N = Stacks.child(N, Frames[I - 1]);
      ++Stacks.Self[N];
      ++SamplesWithStacks;
    }
  }
  ArrayRef<BranchEntry> Br = S.Branches;
  if (Br.empty())
    return Error::success();
  // The aggregator's rule for a duplicated newest entry (Skylake): drop it
  // when the range it would form is forward or long.
  size_t First = 0;
  if (Br.size() >= 2 && Br[0].from() == Br[1].from() &&
      Br[0].to() == Br[1].to() &&
      (Br[0].to() > Br[0].from() ||
       Br[0].from() - Br[0].to() > Opts.DuplicateTopStride))
    First = 1;
  size_t N = Br.size();
  From.resize(N);
  To.resize(N);
  Usable.resize(N);
  for (size_t I = First; I < N; ++I) {
    const BranchEntry &E = Br[I];
    Usable[I] = !(E.from() == 0 && E.to() == 0) && E.spec() != 1;
    if (!Usable[I])
      continue;
    From[I] = locate(E.from());
    To[I] = locate(E.to());
    ++Counts.Entries;
    Counts.EntriesWithCycles += E.cycles() != 0;
  }
  if (CollectStacks && S.Callchain.empty()) {
    Frames.clear();
    Frames.push_back(locate(S.Ip));
    for (size_t I = First; I < N; ++I)
      if (Usable[I]) {
        Frames.push_back(From[I]);
        Frames.push_back(To[I]);
      }
    StringRef Key(reinterpret_cast<const char *>(Frames.data()),
                  Frames.size() * sizeof(Loc));
    auto It = Windows.find(CachedHashStringRef(Key));
    if (It == Windows.end()) {
      const char *Copy = WindowBytes.copy(Key.data(), Key.size());
      It = Windows.try_emplace(CachedHashStringRef(StringRef(Copy, Key.size())),
                               0)
               .first;
    }
    ++It->second;
    ++SamplesWithWindows;
  }
  // Walk the blocks oldest to newest; Run counts the consecutive valid
  // blocks ending at the current one.
  unsigned Run = 0;
  for (size_t I = N - 1; I > First; --I) {
    bool Valid = Usable[I] && Usable[I - 1];
    Loc B = To[I], E = From[I - 1];
    if (Valid) {
      unsigned Cycles = Br[I - 1].cycles();
      if (Cycles)
        ++Counts.BlockCycles[{B, E, Cycles}];
      else
        ++Counts.BlocksWithoutCycles;
    }
    // A chain needs real code: both ends in one file, running forwards.
    Valid = Valid && B != ExternalLoc && E != ExternalLoc &&
            locDso(B) == locDso(E) && B <= E;
    Run = Valid ? Run + 1 : 0;
    if (Run >= PathLength) {
      // Blocks I + PathLength - 1 (oldest) down to I; the slots past
      // 2 * PathLength stay 0, so the key is not cleared per path.
      PathKey &K = PathScratch;
      for (unsigned J = 0; J < PathLength; ++J) {
        size_t Older = I + PathLength - 1 - J;
        K.Ends[2 * J] = To[Older];
        K.Ends[2 * J + 1] = From[Older - 1];
      }
      ++Counts.Paths[K];
    }
  }
  return Error::success();
}

} // namespace lbr2prof
