//===- ReportCounts.cpp - what `report` counts beyond the raw profile -----===//
#include "lbr2prof/Aggregate/ReportCounts.h"
#include "lbr2prof/Support/Hash.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace lbr2prof {

unsigned BlockCyclesKeyInfo::getHashValue(const BlockCyclesKey &K) {
  return hashFold(hashMix(hashMix(hashMix(0, K.Start), K.End), K.Cycles));
}

unsigned PathKeyInfo::getHashValue(const PathKey &K) {
  uint64_t H = 0;
  for (Loc L : K.Ends)
    H = hashMix(H, L);
  return hashFold(H);
}

void mergeReportCounts(ReportCounts &C, const ReportCounts &O) {
  assert(C.PathLength == O.PathLength && "paths of different lengths");
  for (const auto &[K, V] : O.BlockCycles)
    C.BlockCycles[K] = SaturatingAdd(C.BlockCycles[K], V);
  for (const auto &[K, V] : O.Paths)
    C.Paths[K] = SaturatingAdd(C.Paths[K], V);
  C.BlocksWithoutCycles = SaturatingAdd(C.BlocksWithoutCycles,
                                        O.BlocksWithoutCycles);
  C.EntriesWithCycles = SaturatingAdd(C.EntriesWithCycles, O.EntriesWithCycles);
  C.Entries = SaturatingAdd(C.Entries, O.Entries);
}

void scaleReportCounts(ReportCounts &C, double W) {
  for (auto &KV : C.BlockCycles)
    KV.second = scaleCount(KV.second, W);
  for (auto &KV : C.Paths)
    KV.second = scaleCount(KV.second, W);
  C.BlocksWithoutCycles = scaleCount(C.BlocksWithoutCycles, W);
  C.EntriesWithCycles = scaleCount(C.EntriesWithCycles, W);
  C.Entries = scaleCount(C.Entries, W);
}

void rekeyReportCounts(ReportCounts &C, function_ref<Loc(Loc)> Map) {
  ReportCounts R;
  R.PathLength = C.PathLength;
  R.BlocksWithoutCycles = C.BlocksWithoutCycles;
  R.EntriesWithCycles = C.EntriesWithCycles;
  R.Entries = C.Entries;
  for (const auto &[K, V] : C.BlockCycles) {
    uint64_t &N = R.BlockCycles[{Map(K.Start), Map(K.End), K.Cycles}];
    N = SaturatingAdd(N, V);
  }
  for (const auto &[K, V] : C.Paths) {
    PathKey P;
    for (size_t J = 0; J < P.Ends.size(); ++J)
      P.Ends[J] = K.Ends[J] ? Map(K.Ends[J]) : 0;
    uint64_t &N = R.Paths[P];
    N = SaturatingAdd(N, V);
  }
  C = std::move(R);
}

} // namespace lbr2prof
