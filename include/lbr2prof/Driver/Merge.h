//===- Merge.h - lbr2prof merge: sum profiles exactly -----------*- C++ -*-===//
//
// `lbr2prof merge IN... -o OUT`: raw profiles and recordings into one raw
// profile (.lbrraw; exact, in any order and grouping), optionally weighted
// per input or decayed by age for continuous profiling; or BOLT fdata
// files into one fdata file (.fdata), as merge-fdata does.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_DRIVER_MERGE_H
#define LBR2PROF_DRIVER_MERGE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

namespace lbr2prof {

struct MergeOptions {
  std::vector<std::string> Inputs;
  /// OUT.lbrraw or OUT.fdata: what is merged.
  std::string Output;
  /// FILE=W: FILE's counts count W times (W > 0).
  std::vector<std::string> Weights;
  /// HALF_LIFE: an input captured one half-life before the newest counts
  /// half (a number of seconds, or with a unit: 90s, 30m, 12h, 7d, 2w).
  std::string Decay;
  /// The time ages are counted from: seconds since 1970 or YYYY-MM-DD
  /// (UTC); empty: the newest input's capture time.
  std::string DecayTo;
  /// Recordings only: --pid, --no-window-weighting, threads.
  std::vector<uint32_t> Pids;
  bool WindowWeighting = true;
  unsigned Threads = 0;
  /// Keep the report's counts (every raw input must have them).
  bool WithReport = false;
};

/// A duration such as "7d" in seconds; an error names Option.
llvm::Expected<double> parseDuration(llvm::StringRef S,
                                     llvm::StringRef Option);

llvm::Error runMerge(const MergeOptions &Opts, llvm::raw_ostream &Out,
                     llvm::raw_ostream &Err);

} // namespace lbr2prof

#endif
