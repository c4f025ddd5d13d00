//===- Generate.h - the main command: perf.data to a profile ----*- C++ -*-===//
//
// Reads one or more perf.data (or perf script) inputs, aggregates their
// branch stacks, picks the binary (named, matched by build-id or basename,
// or the one with the most samples), validates ranges against its
// disassembly, builds per-function CFGs and writes the requested profile
// atomically.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_DRIVER_GENERATE_H
#define LBR2PROF_DRIVER_GENERATE_H

#include "lbr2prof/Profile/BinaryProfile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lbr2prof {

/// Gcov: GCC's AutoFDO profile (.afdo, gcc -fauto-profile=), line-based.
enum class OutputFormat {
  Auto,
  Fdata,
  PreAggregated,
  Text,
  Binary,
  ExtBinary,
  Gcov,
  /// llvm-profgen's unsymbolized profile (--skip-symbolization).
  Unsymbolized,
  /// A raw profile of every mapped file (.lbrraw; RawProfileFile.h).
  Raw,
  /// BOLT's YAML profile (.yaml, perf2bolt -w; BoltYaml.h).
  BoltYaml,
  /// Propeller's basic block cluster list (.propeller, clang
  /// -fbasic-block-sections=list=) and a symbol order for lld
  /// (Propeller.h).
  Propeller
};

/// --format's name of each format ("fdata", "bolt-yaml", ...; "auto").
llvm::ArrayRef<llvm::StringRef> outputFormatNames();
/// The format --format=Name names, if any.
std::optional<OutputFormat> outputFormatByName(llvm::StringRef Name);

struct GenerateOptions {
  std::vector<std::string> Inputs;
  /// The profiled binary; empty = the DSO with the most samples.
  std::string Binary;
  std::string Output;
  OutputFormat Format = OutputFormat::Auto;
  /// Propeller output: where the symbol order goes (empty: Output with its
  /// extension replaced by .symorder).
  std::string SymbolOrder;
  std::vector<uint32_t> Pids;
  bool IgnoreBuildId = false;
  /// Profile the kernel: Binary is a vmlinux, the samples are those on the
  /// recording's kernel text map (Kernel.h).
  bool Kernel = false;
  /// One profile per mapped file with samples, written into the directory
  /// Output as FILE-BUILDID.EXT, from one read of the inputs.
  bool AllBinaries = false;
  /// Where copies of the recorded files are (BinaryOptions).
  std::string BinaryDir, Sysroot;
  /// Use sample IPs only (no branch stacks), as perf2bolt -nl.
  bool NoLbr = false;
  bool Stats = false;
  /// Correct time-based sampling bias (see AggregateOptions).
  bool WindowWeighting = true;
  /// Make block and edge counts flow-consistent, and with which solver
  /// (see FlowInference.h).
  FlowInferenceMethod InferFlow = FlowInferenceMethod::None;
  /// "raw" or "cfg": also print that stage's text form to stdout.
  std::string Dump;
  unsigned Threads = 0;
  /// The process exits after this run: the profile's large structures
  /// (LLVM's sample-profile maps, the CFGs) are left unfreed, as clang's
  /// -disable-free leaves its ASTs. Freeing their nodes one by one was
  /// 0.1 s of a 1.1 s run (bench/scale's 20 MB broad row).
  bool DisableFree = false;
  /// The binary's debug file (its DWARF, and its symbols when it is
  /// stripped; every output), and a .dwp (sample profiles).
  std::string DebugFile, DwpFile;
  /// Where debug files are searched by build-id and .gnu_debuglink (gdb's
  /// debug-file-directory); empty: /usr/lib/debug.
  std::vector<std::string> DebugFileDirectories;
  /// Sample profiles: MD5 names (extbinary).
  bool UseMD5 = false;
  /// Build a line-based profile even from samples with call stacks (which
  /// otherwise give a context-sensitive one, with --binary).
  bool IgnoreStackSamples = false;
  /// Line-based sample profiles: what is done with code on line 0, "drop"
  /// or "keep" (at (0 - function line) & 0xffff, llvm-profgen's
  /// convention, SymbolizerOptions::KeepLineZero); empty: drop.
  std::string LineZero;
  /// Frames of calling context kept (0 or unset: all; the outermost go
  /// first).
  std::optional<unsigned> MaxContextDepth;
  /// The pre-inliner's callee size scale (budget) or limit in bytes
  /// (size); 0 keeps every context, unmarked; unset: 150 or 75. See
  /// ContextProfileOptions.
  std::optional<uint64_t> CSMaxCalleeSize;
  /// The pre-inliner: "budget" (the default: per caller, hottest calls
  /// first within a growth budget, see ContextProfileOptions) or "size"
  /// (hot calls into callees of at most CSMaxCalleeSize bytes). Empty: the
  /// default.
  std::string CSPreInliner;
  /// Budget pre-inliner: how the calls into a context without head
  /// samples are estimated: "first-site" or "first-counted"
  /// (ContextProfileOptions::EntryKind). Empty: the default.
  std::string CSEntryEstimate;
  /// Budget pre-inliner: code inlined in the profiled binary is "keep"
  /// (stays inlined), "cold" (stays unless it ran but is entered at most
  /// the cold count) or "decide" (decided as calls are;
  /// ContextProfileOptions::InlinedCode). Empty: the default (cold).
  std::string CSInlined;
  /// Budget pre-inliner: a call made fewer times than this % of the calls
  /// into its caller's context keeps no context (unset: 2).
  std::optional<double> CSMinCallShare;
  /// Budget pre-inliner: a caller's code may grow to this many times its
  /// own size (unset: 12).
  std::optional<uint64_t> CSGrowthFactor;
  /// Exact counts from an emulator truth file (utils/lbr-record --truth)
  /// instead of perf.data inputs: a profile of the exact execution.
  std::string FromTruth;
  /// Sample profiles: line-based (DWARF) even when the binary has pseudo
  /// probes, as llvm-profgen --use-dwarf-correlation.
  bool UseDwarfCorrelation = false;
  /// `merge` only (Merge.h): each input's weight, and the decay half-life
  /// (seconds; 0: none) and its reference time (InputOptions).
  std::map<std::string, double> Weights;
  double DecayHalfLife = 0;
  int64_t DecayTo = 0;
  /// A raw profile also keeps what `report` reads beyond the counts
  /// (block cycles, hot paths of 3 blocks; ReportCounts.h).
  bool WithReport = false;
};

/// Chooses the output format from the option or the output file's name.
llvm::Expected<OutputFormat> resolveFormat(OutputFormat F,
                                           llvm::StringRef Output);

/// Every conflict between options, checked before any input is read: an
/// option that does not apply to the output is an error, not silence.
/// Returns the output's format (fdata for a dump without -o).
llvm::Expected<OutputFormat> validate(const GenerateOptions &Opts);

llvm::Error runGenerate(const GenerateOptions &Opts, llvm::raw_ostream &Out,
                        llvm::raw_ostream &Err);

} // namespace lbr2prof

#endif
