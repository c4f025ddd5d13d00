//===- ReportCounts.h - what `report` counts beyond the raw profile -*- C++ -*-===//
//
// Per-block cycle values and chains of consecutive blocks, counted from
// the samples by the report's collector (lib/Report/Collect.cpp). They are
// plain counts keyed by Locs, so a raw profile (.lbrraw) can keep them,
// merges can sum them and `report` can read them from a raw profile.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_AGGREGATE_REPORTCOUNTS_H
#define LBR2PROF_AGGREGATE_REPORTCOUNTS_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "llvm/ADT/DenseMap.h"
#include <array>
#include <cstdint>

namespace lbr2prof {

constexpr unsigned MaxPathLength = 8;
/// `report --path-length`'s default, and the length raw profiles keep.
constexpr unsigned DefaultPathLength = 3;

/// A fall-through block [Start, End] (Locs) and one cycles value observed
/// for it.
struct BlockCyclesKey {
  Loc Start = 0, End = 0;
  uint32_t Cycles = 0;
  bool operator==(const BlockCyclesKey &O) const {
    return Start == O.Start && End == O.End && Cycles == O.Cycles;
  }
};

/// A chain of consecutive blocks, oldest first: for each block its start
/// and end Loc; unused slots are 0.
struct PathKey {
  std::array<Loc, 2 * MaxPathLength> Ends{};
  bool operator==(const PathKey &O) const { return Ends == O.Ends; }
};

struct BlockCyclesKeyInfo {
  static BlockCyclesKey getEmptyKey() { return {~0ULL, ~0ULL, 0}; }
  static BlockCyclesKey getTombstoneKey() { return {~0ULL - 1, ~0ULL, 0}; }
  static unsigned getHashValue(const BlockCyclesKey &K);
  static bool isEqual(const BlockCyclesKey &A, const BlockCyclesKey &B) {
    return A == B;
  }
};
struct PathKeyInfo {
  static PathKey getEmptyKey() {
    PathKey K;
    K.Ends[0] = ~0ULL;
    return K;
  }
  static PathKey getTombstoneKey() {
    PathKey K;
    K.Ends[0] = ~0ULL - 1;
    return K;
  }
  static unsigned getHashValue(const PathKey &K);
  static bool isEqual(const PathKey &A, const PathKey &B) { return A == B; }
};

/// What the report needs beyond the RawProfile, counted per sample with
/// the same entry rules as the aggregator (empty, wrong-path and
/// duplicated-newest entries are skipped).
struct ReportCounts {
  /// The blocks per path (ReportOptions::PathLength) the paths were
  /// counted with.
  unsigned PathLength = 0;
  /// Entries per (block, cycles value) with a cycles value != 0. The
  /// block runs from an entry's target to the next newer entry's source;
  /// its cycles are the newer entry's (cycles since the previous LBR
  /// update, i.e. since the older branch).
  llvm::DenseMap<BlockCyclesKey, uint64_t, BlockCyclesKeyInfo> BlockCycles;
  /// Blocks (entries with a newer neighbour) whose newer entry had cycles 0.
  uint64_t BlocksWithoutCycles = 0;
  /// Entries with a non-zero cycles field, of all usable entries.
  uint64_t EntriesWithCycles = 0, Entries = 0;
  /// Occurrences of chains of PathLength consecutive blocks.
  llvm::DenseMap<PathKey, uint64_t, PathKeyInfo> Paths;
};

/// Adds O's counts to C (their path lengths must be equal).
void mergeReportCounts(ReportCounts &C, const ReportCounts &O);
/// Multiplies every count of C by W (as RawProfile::scaleBy).
void scaleReportCounts(ReportCounts &C, double W);
/// Re-keys every Loc of C by Map (DSO renumbering), summing collisions.
void rekeyReportCounts(ReportCounts &C, llvm::function_ref<Loc(Loc)> Map);

} // namespace lbr2prof

#endif
