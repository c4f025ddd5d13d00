//===- SampleProf.h - LLVM sample profile writer ----------------*- C++ -*-===//
//
// Writes a SampleProfileMap through LLVM ProfileData's SampleProfileWriter
// in text, binary or extbinary form (extbinary with the profile summary and,
// optionally, MD5 names), into a temporary file renamed over Path on
// success. Probe-based profiles carry CFG checksums, which the binary
// format cannot store: they are written as text or extbinary only.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_WRITERS_SAMPLEPROF_H
#define LBR2PROF_WRITERS_SAMPLEPROF_H

#include "llvm/ProfileData/SampleProf.h"
#include "llvm/Support/Error.h"

namespace lbr2prof {

enum class SampleFormat { Text, Binary, ExtBinary };

struct SampleWriterOptions {
  SampleFormat Format = SampleFormat::ExtBinary;
  /// Store MD5 hashes of names instead of names (extbinary only).
  bool UseMD5 = false;
  /// The profile is keyed by pseudo-probe indices: mark it probe-based
  /// (LLVM's FunctionSamples::ProfileIsProbeBased while writing), so the
  /// CFG checksums are written (text: "!CFGChecksum:", extbinary: the
  /// function metadata section, flagged probe-based).
  bool ProbeBased = false;
  /// Some contexts carry the pre-inliner's ContextShouldBeInlined mark:
  /// written as a pre-inlined profile (FunctionSamples::
  /// ProfileIsPreInlined: text "!Attributes:", extbinary's attribute
  /// metadata and summary flag), so clang inlines where it says.
  bool PreInlined = false;
  /// Write extbinary through LLVM's SampleProfileWriter even where our
  /// own writer of the same bytes applies (names, no MD5, no full
  /// contexts): for tests that compare the two.
  bool LLVMWriter = false;
  /// Threads our extbinary writer may use (the same bytes on any number).
  unsigned Threads = 1;
};

/// The largest body-sample or call-target count written: clang turns them
/// into 32-bit branch weights and saturates each one on its own, which
/// loses the ratio between two that are both too large.
constexpr uint64_t MaxWeightCount = 1ULL << 31;

/// Divides every count of Profiles by the smallest whole factor that brings
/// the largest body-sample or call-target count to MaxWeightCount or below
/// (counts that were not 0 stay at least 1); returns the factor (1: left
/// as it was). Counts are estimated executions, so a long recording can
/// exceed 2^32 on its hottest lines. The largest count is found on up to
/// Threads threads.
uint64_t fitBranchWeights(llvm::sampleprof::SampleProfileMap &Profiles,
                          unsigned Threads = 1);

llvm::Error writeSampleProfile(llvm::sampleprof::SampleProfileMap &Profiles,
                               llvm::StringRef Path,
                               const SampleWriterOptions &Opts);

} // namespace lbr2prof

#endif
