//===- Recording.h - the front half every command shares --------*- C++ -*-===//
//
// Every command that turns a recording into something about one binary
// (a profile, a report) starts the same way:
//   readRecording   reads every input once into an LbrAggregator (through a
//                   handler of the command's, e.g. the report's collector),
//                   with progress on a terminal and the reader's warnings
//                   collected;
//   selectBinary    the one rule that finds the binary among the mapped
//                   files: the named one (by build-id or file name), or the
//                   busiest file, ties to the first mapped; a build-id that
//                   differs is an error unless --ignore-build-id;
//   foldMappings    counts every mapping of that binary as one (or, for
//                   --kernel, moves the kernel's offsets into vmlinux's).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_DRIVER_RECORDING_H
#define LBR2PROF_DRIVER_RECORDING_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Aggregate/RawProfileFile.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Driver/Diagnostics.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "llvm/Support/Error.h"
#include <map>
#include <memory>
#include <optional>
#include <functional>
#include <string>
#include <vector>

namespace lbr2prof {

struct InputOptions {
  /// perf.data files, '-' (a pipe) or perf script text.
  std::vector<std::string> Inputs;
  /// An emulator's exact counts (utils/lbr-record --truth) instead.
  std::string FromTruth;
  /// perf script text that maps no file (llvm-profgen's inputs): this
  /// binary is assumed at its preferred address, and the user told so.
  std::string AssumeBinary;
  /// AssumeBinary's image, if the caller has it open already or is opening
  /// it (then this waits for it); null: the reader opens it itself.
  std::function<const BinaryImage *()> AssumeImage;
  /// The units the aggregator counts perf.data samples in (set by the
  /// window weighting); raw profiles carry theirs, and inputs of different
  /// units are an error.
  CountUnits SampleUnits = CountUnits::Estimates;
  /// Each input's weight (`merge --weight FILE=W`; 1 if not given): its
  /// counts are multiplied by it (RawProfile::scaleBy) before they are
  /// added.
  std::map<std::string, double> Weights;
  /// `merge --decay`: an input captured A seconds before DecayTo counts
  /// 2^(-A / DecayHalfLife) times; 0: no decay. DecayTo 0: the newest
  /// input's capture time.
  double DecayHalfLife = 0;
  int64_t DecayTo = 0;
  bool weighted() const { return !Weights.empty() || DecayHalfLife > 0; }
  /// Where the report's counts go (`report`, or a raw profile written
  /// with --with-report): raw inputs add theirs, and must have them.
  ReportCounts *Report = nullptr;
};

/// What the inputs said besides their samples (which are in the
/// aggregator).
struct Recording {
  /// The first input, or the truth file: the name messages give.
  std::string Name;
  /// Every input's build-id table.
  std::vector<BuildIdEntry> BuildIds;
  /// The first input's first event ("cycles" when unnamed).
  std::string EventName;
  bool FromTruth = false;
  /// The units of the counts, once an input has set them.
  std::optional<CountUnits> Units;
  /// Host, perf version, sample times and number of recordings, for a raw
  /// profile written from these inputs.
  RawProvenance Provenance;
};

/// The inputs' own check, made before anything else: there is at least one.
llvm::Error checkInputs(llvm::ArrayRef<std::string> Inputs,
                        llvm::StringRef FromTruth = "");

/// The error for a recording whose samples have no branch stack (Name is
/// Recording::Name); Hint is added after the advice to record with -b.
llvm::Error noBranchStackError(llvm::StringRef Name, llvm::StringRef Hint = "");

/// Reads every input into Agg through Handler (Agg itself, or a handler
/// that forwards to it), then finishes Agg. No samples at all, or none of
/// the selected --pid, is an error.
llvm::Expected<Recording> readRecording(const InputOptions &Opts,
                                        LbrAggregator &Agg,
                                        PerfEventHandler &Handler,
                                        Diagnostics &Diags);

/// The busiest mapped files, one line: " 2 /a/f.elf, 1 [unknown], and 3
/// more" (five at most).
std::string listDsos(const RawProfile &Raw, const std::vector<DsoInfo> &Dsos);

struct BinaryOptions {
  /// The binary (--binary); empty = the busiest mapped file.
  std::string Binary;
  bool IgnoreBuildId = false;
  /// Binary is a vmlinux for the recording's kernel text map.
  bool Kernel = false;
  /// Where copies of the recorded files are (recorded on another machine):
  /// a directory of copies, by build-id (perf's build-id cache layout,
  /// .build-id/xx/yyyy) or by file name (--binary-dir), and a root the
  /// recorded paths are under (--sysroot).
  std::string BinaryDir;
  std::string Sysroot;
  /// Where the binary's debug file is looked for: its functions come from
  /// there when it is stripped (BinaryImage::open).
  DebugFileOptions Debug;
};

/// Where to open a mapped file of the recording (its recorded path and
/// build-id, which may be empty): the first of
///   BinaryDir/.build-id/xx/yyyy[/elf], BinaryDir/NAME, Sysroot/PATH, PATH
/// that exists and has that build-id; if none has it, the first that
/// exists (the build-id check then says which differs); if none exists,
/// the recorded path.
std::string locateBinary(llvm::StringRef Recorded,
                         llvm::ArrayRef<uint8_t> BuildId,
                         const BinaryOptions &Opts);

struct SelectedBinary {
  std::string Path;
  /// The DSO the profile is of: the busiest mapping of the binary.
  int Dso = -1;
  /// Every mapped file that is this binary, Dso among them.
  std::vector<int> Mappings;
  /// Files of the binary's path with another build-id, left out because
  /// some mapped file has the binary's own (a merge of two builds' raw
  /// profiles).
  std::vector<int> OtherBuilds;
  bool Kernel = false;
  const BinaryImage &image() const { return *Image; }
  std::unique_ptr<BinaryImage> Owned;
  const BinaryImage *Image = nullptr;
};

/// Finds the binary in the recording (the rule above) and opens it, or
/// uses Known when it is that binary's image already.
llvm::Expected<SelectedBinary>
selectBinary(const Recording &Rec, const RawProfile &Raw,
             const ProcessMaps &Maps, const BinaryOptions &Opts,
             const BinaryImage *Known);

/// The binary's samples, of all mapped files' (before foldMappings).
struct SampleShare {
  uint64_t Samples = 0;
  uint64_t Total = 0;
};
SampleShare sampleShare(const RawProfile &Raw, llvm::ArrayRef<int> Mappings);

/// The note a run gives when it chose the binary itself (no --binary):
/// "chose FILE (build-id ID), the busiest mapped file: 158 of 271 samples
/// (58.3%); next: OTHER 113; give --binary to choose another".
/// The note for SelectedBinary::OtherBuilds, or "" when there are none.
std::string describeOtherBuilds(const SelectedBinary &B,
                                const RawProfile &Raw,
                                const ProcessMaps &Maps,
                                const Recording &Rec);

std::string describeChoice(const SelectedBinary &B, const RawProfile &Raw,
                           const ProcessMaps &Maps);

/// Says which separate debug file a binary's symbols or DWARF came from (a
/// note, given once per run), and which candidates of another build the
/// search skipped (a warning). D may be null (no lookup was made).
void noteDebugFile(llvm::StringRef BinaryPath, const DebugFileResult *D,
                   Diagnostics &Diags);

/// The error for a binary without function symbols: what needs them
/// (Need), where they were looked for, and what to give instead; Else is
/// added to the advice (", or write ...").
llvm::Error noSymbolsError(const SelectedBinary &B, llvm::StringRef Need,
                           llvm::StringRef Else = "");

/// Counts every mapping of the binary as its DSO; for a kernel, makes the
/// DSO's offsets vmlinux file offsets.
llvm::Error foldMappings(RawProfile &Raw, const SelectedBinary &B,
                         const ProcessMaps &Maps);

} // namespace lbr2prof

#endif
