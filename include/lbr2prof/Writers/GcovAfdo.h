//===- GcovAfdo.h - GCC AutoFDO (.afdo) profiles ----------------*- C++ -*-===//
//
// GCC's `-fauto-profile=FILE` reads a sample profile in a gcov-based format
// of its own (gcc/auto-profile.cc; version 2 in GCC 12). This writes a
// line-based LLVM SampleProfileMap in that format, and reads such a file
// back into one so that `lbr2prof dump app.afdo` can print it in the text
// sample-profile layout. The layout, word by word, is in docs/formats.md
// ("Write: GCC AutoFDO") and above the code in GcovAfdo.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_WRITERS_GCOVAFDO_H
#define LBR2PROF_WRITERS_GCOVAFDO_H

#include "llvm/ProfileData/SampleProf.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <memory>

namespace lbr2prof {

/// The AutoFDO profile version gcc 12 accepts (AUTO_PROFILE_VERSION in
/// gcc/auto-profile.cc).
constexpr uint32_t GcovAfdoVersion = 2;

/// True if Bytes starts with the gcov data magic ("gcda", little-endian:
/// the bytes "adcg"), as an .afdo file does.
bool isGcovAfdo(llvm::StringRef Bytes);

/// What writeGcovAfdo left out or joined, for the caller's diagnostics.
struct GcovAfdoStats {
  /// Top-level function instances written.
  uint64_t Functions = 0;
  /// Profiles whose names became equal once GCC's suffix (".part.0",
  /// ".constprop.1", ".cold") was cut, merged into one.
  uint64_t Merged = 0;
  /// Locations dropped because their discriminator does not fit GCC's 16
  /// bits.
  uint64_t WideDiscriminators = 0;
  /// Locations left out because their count is 0 and they have no call
  /// target: gcc would pin their blocks to 0 (see GcovAfdo.cpp).
  uint64_t ZeroLocations = 0;
  /// Top-level functions with samples but a head count of 0, written with
  /// a head count of 1: gcc would count none of their blocks otherwise.
  uint64_t RaisedHeads = 0;
};

/// Writes Profiles (line-based, not context-sensitive, not probe-based) to
/// Path as a GCC AutoFDO version-2 file, through an AtomicOutputFile.
/// Names are cut at their first '.', as GCC cuts every name it reads, and
/// profiles that then share a name are merged.
llvm::Expected<GcovAfdoStats>
writeGcovAfdo(const llvm::sampleprof::SampleProfileMap &Profiles,
              llvm::StringRef Path);

/// An .afdo file read back: the top-level function instances as LLVM
/// sample profiles (total samples as GCC computes them: the sum of the
/// instance's own and its inlinees' location counts), with the names they
/// point to kept alive here.
struct GcovAfdoProfile {
  std::unique_ptr<llvm::BumpPtrAllocator> Names =
      std::make_unique<llvm::BumpPtrAllocator>();
  llvm::sampleprof::SampleProfileMap Profiles;
};

/// Reads an .afdo file's bytes; errors name the buffer's identifier (the
/// file) and the byte offset of the fault.
llvm::Expected<GcovAfdoProfile> readGcovAfdo(llvm::MemoryBufferRef Buffer);

/// Prints P in LLVM's text sample-profile layout (functions by total,
/// then name, as LLVM's text writer orders them).
llvm::Error printGcovAfdo(GcovAfdoProfile &P, llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
