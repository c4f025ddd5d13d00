//===- ProbeProfileBuilder.h - counts to a probe-based profile --*- C++ -*-===//
//
// Builds the probe-based sample profile that clang -fpseudo-probe-for-
// profiling -fprofile-sample-use reads, from a BinaryProfile and the
// binary's pseudo probes (no debug info needed):
//  - body samples: each probe instance counts the executions of the
//    instruction at its address; instances of one probe (duplicated
//    blocks) add up; the count goes to (probe index, discriminator) in the
//    profile of the probe's function, nested under its inline call sites
//    (LineLocation(call-site probe index, 0)), as llvm-profgen does;
//  - explicit zeros for the probes of every function that ran at all, so
//    the compiler knows those blocks are cold rather than unknown;
//  - call targets: calls and tail calls to a function's entry add the
//    callee at the call probe of the call instruction; head samples of a
//    top-level profile are the transfers into the function's entry;
//  - every profile (top-level and inlined) carries its function's CFG
//    checksum from .pseudo_probe_desc, which clang checks before use.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PROFILE_PROBEPROFILEBUILDER_H
#define LBR2PROF_PROFILE_PROBEPROFILEBUILDER_H

#include "lbr2prof/Binary/PseudoProbes.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/ProfileData/SampleProf.h"
#include "llvm/Support/raw_ostream.h"

namespace lbr2prof {

struct ProbeProfileStats {
  uint64_t Functions = 0;       ///< top-level profiles
  uint64_t TotalSamples = 0;
  uint64_t ProbesCounted = 0;   ///< probe instances with a count
  uint64_t ProbesZero = 0;      ///< written with 0 (cold, in a function that ran)
  uint64_t ProbesNoDesc = 0;    ///< dropped: a GUID without descriptor
  uint64_t Calls = 0;           ///< calls to function entries
  uint64_t CallsNoProbe = 0;    ///< of which no call probe at the call
  /// Sample-weighted mean of (function total / function probes) over the
  /// hottest functions holding 99% of the samples.
  double HotDensity = 0;
};

struct ProbeProfileResult {
  llvm::sampleprof::SampleProfileMap Profiles;
  ProbeProfileStats Stats;
};

/// Builds the profile. Names in the result point into Probes (descriptor
/// names) and Image (symbol names of call targets without probes), which
/// must outlive it.
ProbeProfileResult buildProbeProfile(const BinaryProfile &P,
                                     const BinaryImage &Image,
                                     const PseudoProbes &Probes);

void printProbeProfileStats(const ProbeProfileStats &S,
                            llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
