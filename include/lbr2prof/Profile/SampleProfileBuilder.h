//===- SampleProfileBuilder.h - counts to an LLVM sample profile -*- C++ -*-===//
//
// Builds the line-based sample profile clang's -fprofile-sample-use reads,
// from a BinaryProfile and the binary's debug info:
//  - body samples: each executed instruction's count, times its duplication
//    factor, at its (line offset, discriminator) in the function of its
//    innermost inline frame, nested under its inline call sites; a location
//    gets the MAXIMUM over its instructions (not the sum: one long line is
//    one statement, not many);
//  - call targets: each call instruction's targets with counts, at the call
//    site's location (indirect calls included, for promotion);
//  - head samples: every call or tail call to a function's entry, also from
//    a call site without a line and from outside the binary;
//  - total samples: count x size in bytes of every executed instruction,
//    added to its function and to each inlined call site on its inline
//    stack (llvm-profgen's convention; clang compares an inlined site's
//    total with the hot count of the body samples to decide to inline it);
//  - line 0 (code the compiler made or merged, with no source line):
//    dropped by default; with SymbolizerOptions::KeepLineZero (the
//    Symbolizer then gives their frames) written at offset
//    (0 - the function's line) & 0xffff, where clang's sample loader looks
//    for it (FunctionSamples::getOffset) and llvm-profgen writes it.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PROFILE_SAMPLEPROFILEBUILDER_H
#define LBR2PROF_PROFILE_SAMPLEPROFILEBUILDER_H

#include "lbr2prof/Binary/Symbolizer.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/ProfileData/SampleProf.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace lbr2prof {

struct SampleProfileStats {
  uint64_t Instructions = 0;         ///< executed instructions seen
  uint64_t InstructionsNoDebug = 0;  ///< of which had no line info
  /// Executed instructions whose stack has a frame on line 0 (only with
  /// SymbolizerOptions::KeepLineZero; InstructionsNoDebug otherwise).
  uint64_t InstructionsLineZero = 0;
  uint64_t Calls = 0, CallsNoDebug = 0;
  /// The rest, a walk of every profile, comes from summarizeSampleProfile()
  /// (--stats).
  uint64_t Functions = 0;            ///< top-level profiles
  uint64_t TotalSamples = 0;
  /// Sample-weighted mean of (function total / function instructions) over
  /// the hottest functions holding 99% of the samples.
  double HotDensity = 0;
};

struct SampleProfileResult {
  llvm::sampleprof::SampleProfileMap Profiles;
  SampleProfileStats Stats;
};

/// The addresses buildSampleProfile() asks Sym about: every instruction of
/// each function that ran, and the targets of its taken branches, sorted
/// and distinct (give them to Symbolizer::prefetch() first).
std::vector<uint64_t> sampleProfileAddresses(const BinaryProfile &P,
                                             const BinaryImage &Image);

/// Builds the profile, on up to Threads threads (when Sym is isolated).
/// Names in the result point into Sym, which must outlive it.
SampleProfileResult buildSampleProfile(const BinaryProfile &P,
                                       const BinaryImage &Image,
                                       Symbolizer &Sym, unsigned Threads = 1);

/// Fills R.Stats' profile count, total samples and hot-code density from
/// R.Profiles, built by buildSampleProfile() from the same P and Sym.
void summarizeSampleProfile(const BinaryProfile &P, const BinaryImage &Image,
                            Symbolizer &Sym, SampleProfileResult &R);

void printSampleProfileStats(const SampleProfileStats &S,
                             llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
