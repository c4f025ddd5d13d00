//===- Report.h - what the branch stacks say about a program ----*- C++ -*-===//
//
// `lbr2prof report`: reads perf.data inputs once, counting taken branches
// and fall-through ranges with the LbrAggregator and, beside it, what the
// RawProfile does not keep (ReportCollector): the cycles field of every
// entry per basic block, and chains of consecutive blocks within one stack.
// analyzeReport() then turns those address-keyed counts into tables in
// binary (link-time) addresses of one binary, symbolizing each distinct
// address once; printTextReport()/writeHtmlReport() render them.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_REPORT_REPORT_H
#define LBR2PROF_REPORT_REPORT_H

#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Aggregate/ReportCounts.h"
#include "lbr2prof/Support/Arena.h"
#include "llvm/ADT/CachedHashString.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lbr2prof {

/// How the branch tables are ordered.
enum class ReportSort { Count, Mispred, MispredRate, Cycles };

/// How C++ names are shown: Short drops template arguments, parameter
/// lists and return types ("std::__introsort_loop"), Full is the whole
/// demangled name, None the symbol as written.
enum class ReportDemangle { Short, Full, None };

/// Cycles one mispredicted branch costs by default (the report states the
/// figure it used): Intel's optimization manual gives about 15-20 for
/// recent cores; Zen's is about the same.
constexpr unsigned DefaultMispredictPenalty = 20;

struct ReportOptions {
  std::vector<std::string> Inputs;
  /// The binary to report on; empty = the mapped file with the most samples.
  std::string Binary;
  /// Where copies of the recorded files are (BinaryOptions).
  std::string BinaryDir, Sysroot;
  std::vector<uint32_t> Pids;
  bool IgnoreBuildId = false;
  /// The binary's debug file (file:line, and symbols when it is stripped),
  /// and where debug files are searched (DebugFile.h); empty: the search's
  /// defaults.
  std::string DebugFile;
  std::vector<std::string> DebugFileDirectories;
  /// Rows per table.
  unsigned Top = 20;
  ReportSort Sort = ReportSort::Count;
  /// Also write an HTML page here (the text still goes to the stream).
  std::string HtmlOutput;
  /// Also write every view as JSON here (docs/report-schema.json).
  std::string JsonOutput;
  /// Also write the call tree as a speedscope file here.
  std::string FlameOutput;
  ReportDemangle Demangle = ReportDemangle::Short;
  /// Annotate this function (shown, demangled or mangled name) in every
  /// output; empty: the HTML and JSON annotate the AnnotateHot hottest
  /// functions of the binary, the text none.
  std::string Annotate;
  unsigned AnnotateHot = 3;
  /// Cycles charged per mispredicted entry in the function table.
  unsigned MispredictPenalty = DefaultMispredictPenalty;
  /// Blocks to show in detail: "0xADDR" (a block starting at, or else
  /// containing, that binary address) or "function:line".
  std::string Block;
  /// Blocks per hot path (hyperblock).
  unsigned PathLength = DefaultPathLength;
  /// Histograms drawn for the hottest blocks when --block is not given.
  unsigned HistogramBlocks = 3;
};

struct ReportData;
struct ReportCounts;
class Symbolizer;
class BinaryImage;
/// Builds the tables of D from the counts of a read recording, for the
/// binary Image whose mapped files are those set in InBinary (by DSO
/// index). Sym (may be null) gives file:line.
class ReportCollector;
/// Col (may be null) gives the call stacks and branch-stack windows the
/// call tree is built from.
llvm::Error analyzeReport(const ReportOptions &Opts, RawProfile &Raw,
                          const ReportCounts &Counts,
                          const ReportCollector *Col, const ProcessMaps &Maps,
                          const BinaryImage &Image, Symbolizer *Sym,
                          std::vector<bool> InBinary, ReportData &D);

//===----------------------------------------------------------------------===//
// Collection (address-keyed, before any symbolization).
//===----------------------------------------------------------------------===//

/// Longest hot path the collector can key.
/// Forwards every event to an LbrAggregator (single-threaded, unweighted)
/// and counts ReportCounts from the same samples, locating addresses
/// through the aggregator's process maps.
class ReportCollector : public PerfEventHandler {
public:
  /// CollectStacks: also keep what the call tree needs (Stacks, Windows);
  /// `report` does, raw profiles (--with-report) do not keep them.
  ReportCollector(LbrAggregator &Agg, const AggregateOptions &Opts,
                  unsigned PathLength, bool CollectStacks = false);
  llvm::Error onSample(const Sample &S, const RecordInfo &R) override;
  llvm::Error onMmap(const MmapEvent &E, const RecordInfo &R) override;
  llvm::Error onComm(const CommEvent &E, const RecordInfo &R) override;
  llvm::Error onTask(const TaskEvent &E, const RecordInfo &R) override;
  ReportCounts Counts;

  /// Call stacks of samples that carry one (-g), as a trie of frame Locs
  /// from the outermost frame in: node 0 is the root; a return address is
  /// located one byte back, in its call instruction. Self counts the
  /// samples whose stack ends at the node.
  struct StackTrie {
    std::vector<uint32_t> Parent{0};
    std::vector<Loc> Frame{ExternalLoc};
    std::vector<uint64_t> Self{0};
    llvm::DenseMap<std::pair<uint32_t, Loc>, uint32_t> Children;
    uint32_t child(uint32_t P, Loc L);
  } Stacks;
  uint64_t SamplesWithStacks = 0;
  /// The branch stacks of samples without a call stack, for the call tree
  /// from call/return pairs (the instructions' kinds are known only once
  /// the binary is chosen): the IP's Loc, then each usable entry's from
  /// and to Locs, newest first; identical windows counted once.
  llvm::DenseMap<llvm::CachedHashStringRef, uint64_t> Windows;
  Arena WindowBytes;
  uint64_t SamplesWithWindows = 0;

private:
  LbrAggregator &Agg;
  const AggregateOptions &Opts;
  unsigned PathLength;
  bool CollectStacks;
  /// Per-sample scratch, reused.
  std::vector<Loc> From, To, Frames;
  PathKey PathScratch;
  std::vector<uint8_t> Usable;
};

//===----------------------------------------------------------------------===//
// The analyzed report (binary addresses of one binary).
//===----------------------------------------------------------------------===//

/// A symbolized binary address. Addr 0 with External set: outside the
/// binary.
struct ReportLoc {
  uint64_t Addr = 0;
  bool External = false;
  /// Demangled function name ("" if none) and offset in it.
  std::string Function;
  uint64_t FuncOffset = 0;
  /// Source file (base name) and line; Line 0 if unknown.
  std::string File;
  uint32_t Line = 0;
};

struct BranchRow {
  ReportLoc From, To;
  uint64_t Count = 0, Mispred = 0, CyclesSum = 0;
};

struct CondRow {
  ReportLoc Branch, Target;
  uint64_t Taken = 0, NotTaken = 0, MispredTaken = 0;
};

struct IndirectRow {
  ReportLoc Source;
  bool IsCall = false;
  uint64_t Total = 0;
  /// Targets by count, highest first.
  std::vector<std::pair<ReportLoc, uint64_t>> Targets;
};

/// Log2 bins: bin 0 holds 1 cycle, bin k holds [2^k, 2^(k+1)-1]; the 16
/// bins cover the 16-bit field.
constexpr unsigned CycleBins = 16;

struct BlockRow {
  ReportLoc Start, End;
  uint64_t Count = 0, Sum = 0;
  uint32_t Min = 0, P50 = 0, P90 = 0, Max = 0;
  std::array<uint64_t, CycleBins> Bins{};
  /// Exact values with their counts, ascending (for --block).
  std::vector<std::pair<uint32_t, uint64_t>> Values;
};

struct PathRow {
  /// Blocks oldest first: (start, end).
  std::vector<std::pair<ReportLoc, ReportLoc>> Blocks;
  uint64_t Count = 0;
};

/// A function: where sample IPs fell, the taken branches leaving it, and
/// the latency of the blocks starting in it. Functions of other files are
/// named "FILE:SYMBOL" (or "FILE" when that file's symbols are unknown).
struct FunctionRow {
  std::string Name;
  /// The binary's function index, -1 for other files.
  int Index = -1;
  /// The file the function is in (base name).
  std::string Dso;
  uint64_t Samples = 0, Taken = 0, Mispred = 0;
  /// Block measurements starting in the function, and their cycles.
  uint64_t BlockCount = 0, BlockCycles = 0;
};

/// A mapped file: samples whose IP is in it, entries whose source is in it.
struct DsoRow {
  std::string Path;
  uint64_t Samples = 0, Taken = 0, Mispred = 0;
};

/// One instruction of an annotated function.
struct AnnotatedInst {
  uint64_t Addr = 0;
  /// LLVM MC's text of it.
  std::string Text;
  /// Its source line (DWARF), and that line's text when the file is
  /// readable here; set on the first instruction of each run of one line.
  std::string File, SourceText;
  uint32_t Line = 0;
  bool NewLine = false;
  /// First instruction of a basic block (function start, branch target, or
  /// after a branch).
  bool BlockStart = false;
  /// Sample IPs at it.
  uint64_t Samples = 0;
  /// Executions seen: fall-through ranges of the branch stacks covering it.
  uint64_t Count = 0;
  /// A branch (or call, or return): entries from it, how many were
  /// mispredicted, and ranges that ran over it (fall-through).
  bool Branch = false;
  uint64_t Taken = 0, Mispred = 0, FallThrough = 0;
  /// Cycles of the block ending at it (log2 bins), when recorded.
  std::array<uint64_t, CycleBins> Bins{};
  uint64_t Measurements = 0;
};

struct AnnotatedFunction {
  std::string Name;
  uint64_t Start = 0, End = 0, Samples = 0;
  std::vector<AnnotatedInst> Insts;
};

/// Where the call tree comes from.
enum class FlameSource { None, CallStacks, BranchStacks };

/// A node of the call tree: a function called along one path. Node 0 is
/// the root ("all"); children follow their parent in the vector, and each
/// node's children are ordered by Total, highest first.
struct FlameNode {
  std::string Name;
  int Parent = -1;
  /// Samples ending here, and ending here or below.
  uint64_t Self = 0, Total = 0;
  std::vector<int> Children;
};

struct CallRow {
  std::string Caller, Callee;
  uint64_t Count = 0;
};

struct ReportData {
  std::vector<std::string> Inputs;
  std::string BinaryPath;
  uint64_t Samples = 0, SamplesWithBranches = 0;
  /// Usable entries in all files, and those with an end in the binary.
  uint64_t Entries = 0, EntriesInBinary = 0;
  /// Entries with a non-zero cycles field (0 on AMD).
  uint64_t EntriesWithCycles = 0;
  /// Sum of the counts of the rows below, before cutting to Top.
  uint64_t CondTotal = 0, IndirectTotal = 0, BlockTotal = 0, PathTotal = 0,
           CallTotal = 0;
  size_t BranchRowsAll = 0, CondRowsAll = 0, IndirectRowsAll = 0,
         BlockRowsAll = 0, PathRowsAll = 0, CallRowsAll = 0;
  size_t FunctionRowsAll = 0, DsoRowsAll = 0;
  std::vector<FunctionRow> Functions;
  std::vector<DsoRow> Dsos;
  unsigned MispredictPenalty = DefaultMispredictPenalty;
  std::vector<BranchRow> Branches;
  std::vector<CondRow> Conds;
  std::vector<IndirectRow> Indirects;
  std::vector<BlockRow> Blocks;
  /// Blocks drawn as histograms: --block's matches, else the hottest.
  std::vector<BlockRow> Detail;
  /// The --block argument, and whether it matched nothing.
  std::string BlockQuery;
  std::vector<PathRow> Paths;
  unsigned PathLength = 0;
  std::vector<CallRow> Calls;
  ReportSort Sort = ReportSort::Count;
  FlameSource Flame = FlameSource::None;
  /// --annotate's function(s), or the hottest ones when it is not given.
  std::vector<AnnotatedFunction> Annotated;
  bool AnnotateChosen = false;
  std::vector<FlameNode> FlameNodes;
};

/// The bin of a cycles value (>= 1).
unsigned cycleBin(uint32_t Cycles);
/// "1", "2-3", "4-7", ...
std::string cycleBinLabel(unsigned Bin);
/// "f+0x1a file.c:12" (or "0x401000" / "[external]").
std::string formatLoc(const ReportLoc &L);

/// Symbol Name as Mode shows it (shortDemangle for Short).
std::string displayName(llvm::StringRef Name, ReportDemangle Mode);
/// An Itanium-mangled function name as "ns::Class::func", without template
/// arguments, parameters or return type; other names demangled in full.
std::string shortDemangle(llvm::StringRef Name);

void printTextReport(const ReportData &D, llvm::raw_ostream &OS);
/// The call tree as a speedscope file ("sampled" profile, one stack per
/// node with self samples).
void writeSpeedscope(const ReportData &D, llvm::raw_ostream &OS);
void writeHtmlReport(const ReportData &D, llvm::raw_ostream &OS);
void writeJsonReport(const ReportData &D, llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
