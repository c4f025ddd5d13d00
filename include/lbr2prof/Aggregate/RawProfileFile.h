//===- RawProfileFile.h - .lbrraw: a raw profile on disk --------*- C++ -*-===//
//
// The aggregated counts of a recording, before any binary is opened: every
// mapped file's taken branches, fall-through ranges and sample IPs, keyed
// by (file, file offset), with the sample totals, the units of the counts
// and where the recording came from. It is what a host sends in a fleet
// (docs/fleet.md): small (distinct addresses only), needing no binary, and
// summed exactly, in any order and grouping, by `lbr2prof merge`.
//
// Layout (docs/formats.md, "Read and write: raw profiles (.lbrraw)"): an
// 8-byte magic "LBR2RAW\0", a u32 version, a u32 flags word (bit 0: the
// body is one zstd frame), the body's size as a u64, then the body:
// ULEB128 numbers and length-prefixed strings, in a fixed order, each
// table sorted, so the same counts give the same bytes.
//
// Exactness: counts are integers, and weights are whole units of 2^-16
// (quantizeWeight), stored as integers; a merge adds integers, so it is
// associative and commutative, and a merged file is the file one run over
// all the inputs writes.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_AGGREGATE_RAWPROFILEFILE_H
#define LBR2PROF_AGGREGATE_RAWPROFILEFILE_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Aggregate/ReportCounts.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace lbr2prof {

/// What the counts are (docs/formats.md, "Units of the counts"); a merge
/// of different units is an error.
enum class CountUnits : uint8_t {
  /// Window-weighted estimates of executions (the default).
  Estimates = 0,
  /// Branch-stack entries (--no-window-weighting), the peers' units.
  Entries = 1,
  /// Exact counts (an lbr-record truth file, an unsymbolized profile).
  Exact = 2,
};
llvm::StringRef unitsName(CountUnits U);

/// Where the counts came from: for a merge, the first input's host and
/// perf version, the earliest and latest sample times, the earliest and
/// latest capture times, and how many recordings were summed.
struct RawProvenance {
  std::string Host, PerfVersion, Event;
  /// perf's sample clock (ns since boot): comparable within one host only.
  uint64_t TimeFirst = 0, TimeLast = 0;
  /// When the recordings were made, in seconds since 1970 (a perf.data
  /// file's modification time, as `perf report --header` says "captured
  /// on"); 0 if unknown (a pipe). --decay weighs inputs by these.
  int64_t CapturedFirst = 0, CapturedLast = 0;
  uint64_t Recordings = 0;
};

/// A raw profile as read: the counts keyed by Locs whose DSO indices are
/// positions in Dsos.
struct RawProfileFile {
  CountUnits Units = CountUnits::Estimates;
  RawProvenance Provenance;
  std::vector<DsoInfo> Dsos;
  RawProfile Profile;
  /// What `report` reads beyond the profile, when the raw profile was
  /// written with --with-report.
  std::optional<ReportCounts> Report;
};

/// True if the file at Path starts with the .lbrraw magic.
bool isRawProfileFile(llvm::StringRef Path);

/// Writes Profile (with its DSO table, build-ids resolved through
/// BuildIds, and the report's counts if Report is given) to Path through a
/// temporary file.
llvm::Error writeRawProfileFile(const RawProfile &Profile,
                                llvm::ArrayRef<DsoInfo> Dsos,
                                llvm::ArrayRef<BuildIdEntry> BuildIds,
                                CountUnits Units, const RawProvenance &P,
                                llvm::StringRef Path,
                                const ReportCounts *Report = nullptr);

/// Reads Path; a damaged or cut file is a one-line error naming the file
/// and the offset, never a partial profile.
llvm::Expected<RawProfileFile> readRawProfileFile(llvm::StringRef Path);

} // namespace lbr2prof

#endif
