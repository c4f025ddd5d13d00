//===- LbrAggregator.h - branch and fall-through counts ---------*- C++ -*-===//
//
// Turns branch stacks into counts keyed by address, before any symbolization:
// every entry is a taken branch (from, to); between two consecutive entries,
// oldest to newest, the code from the older entry's target to the newer
// entry's source ran straight through (a fall-through range). LBR records
// only taken branches, so these ranges are how block counts are inferred.
//
//      older entry i          newer entry i-1
//   [from_i -> to_i]  ...  [from_{i-1} -> to_{i-1}]
//              `-- range [to_i, from_{i-1}] executed sequentially --'
//
// Addresses are kept as Locs: (DSO index + 1) << 48 | file offset in that
// DSO, through the process's mappings at the time of the sample, so one pass
// serves every binary and processes with different load addresses agree.
// Loc 0 means "outside any mapped file" (kernel, JIT, unmapped). Validation
// against instructions happens later, once per distinct range.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_AGGREGATE_LBRAGGREGATOR_H
#define LBR2PROF_AGGREGATE_LBRAGGREGATOR_H

#include "lbr2prof/Aggregate/Contexts.h"
#include "lbr2prof/Aggregate/ProcessMaps.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Support/Hash.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>

namespace lbr2prof {

/// A DSO-relative location: (dso + 1) << 48 | file offset; 0 = external.
/// The DSO index has 15 bits (MaxDsos, ProcessMaps keeps within it), so a
/// Loc never has its top bit set (report keys use that bit).
using Loc = uint64_t;
constexpr Loc ExternalLoc = 0;
inline Loc makeLoc(unsigned Dso, uint64_t FileOffset) {
  assert(Dso + 1 < (1u << 15) && "DSO index out of a Loc's range");
  return (uint64_t(Dso + 1) << 48) | (FileOffset & ((1ULL << 48) - 1));
}
inline int locDso(Loc L) { return int(L >> 48) - 1; }
inline uint64_t locOffset(Loc L) { return L & ((1ULL << 48) - 1); }
/// L with its DSO index renamed by OldToNew (L itself if not in it).
Loc renameDso(Loc L, const llvm::DenseMap<int, int> &OldToNew);

/// Weights are whole multiples of 2^-16 (WeightUnit): sums of them are
/// exact in a double up to 2^53 units (1.4e11 executions a key), so they
/// do not depend on the order of addition: threads, inputs and merges of
/// raw profiles (.lbrraw) in any grouping give the same bits.
constexpr double WeightUnit = 1.0 / 65536;
/// W to the nearest unit; a positive weight is at least one unit (a
/// period-1 sample over a window of megabytes weighs 2e-6).
inline double quantizeWeight(double W) {
  double Units = W * 65536.0;
  if (Units >= 9.0e15)
    return W;
  uint64_t U = uint64_t(Units + 0.5);
  return double(U ? U : W > 0) * WeightUnit;
}

/// N times W > 0 to the nearest integer, for weighted merges; what was
/// seen stays seen (at least 1).
inline uint64_t scaleCount(uint64_t N, double W) {
  if (!N)
    return 0;
  double X = std::round(double(N) * W);
  if (X >= 1.8e19)
    return UINT64_MAX;
  return std::max<uint64_t>(1, uint64_t(X));
}

struct BranchCount {
  /// Entries seen.
  uint64_t Count = 0;
  uint64_t Mispred = 0;
  /// Sum of the cycles fields of these entries (for latency reports).
  uint64_t Cycles = 0;
  /// Sum of the entries' sampling weights (see RawProfile::scale()).
  double Weight = 0;
};

struct RangeCount {
  uint64_t Count = 0;
  double Weight = 0;
};

/// Why entries and ranges were set aside while aggregating.
struct AggregateStats {
  uint64_t Samples = 0;
  uint64_t SamplesFiltered = 0;    ///< not from a selected pid
  uint64_t SamplesNoBranches = 0;  ///< no branch stack
  uint64_t Entries = 0;
  uint64_t EntriesZero = 0;        ///< from and to both 0 (invalid entry)
  uint64_t EntriesExternal = 0;    ///< both ends outside mapped files
  uint64_t EntriesWrongPath = 0;   ///< speculative wrong-path entries
  uint64_t DuplicateTop = 0;       ///< dropped duplicated newest entry
  uint64_t Ranges = 0;
  uint64_t RangesExternal = 0;     ///< an end outside mapped files
  uint64_t RangesCrossDso = 0;     ///< ends in different files
};

/// Options for aggregation.
struct AggregateOptions {
  /// Only samples of these pids (empty = all).
  llvm::DenseSet<uint64_t> Pids;
  /// Correct the bias of time-based sampling: a sample's stack covers the
  /// last N branches, so where branches are sparse one branch execution
  /// lies in the windows of more samples than where they are dense. Each
  /// entry of a sample is weighted by 1 / (bytes of code the stack's window
  /// spans), which makes every executed byte equally likely to count.
  bool WindowWeighting = true;
  /// Threads counting samples (1: count on the reading thread).
  unsigned Threads = 1;
  /// Drop a duplicated newest entry (Skylake LBR quirk) when the range it
  /// would form is implausible: longer than this or backwards.
  uint64_t DuplicateTopStride = 0x1000;
  /// If set, samples with a call stack are also unwound into calling
  /// contexts of this binary (Contexts.h); the oracle must outlive the
  /// aggregation.
  const TransferOracle *Contexts = nullptr;
  /// Keep at most this many frames of context (0: all); the outermost go.
  unsigned MaxContextDepth = 0;
};

/// The aggregated counts: a value with a deterministic text form.
struct RawProfile {
  llvm::DenseMap<std::pair<Loc, Loc>, BranchCount> Branches;
  llvm::DenseMap<std::pair<Loc, Loc>, RangeCount> Ranges;
  /// Sample IPs (for IP-only profiles).
  llvm::DenseMap<Loc, uint64_t> Ips;
  /// Samples per DSO (by the sample IP), for choosing a binary.
  llvm::DenseMap<int, uint64_t> SamplesPerDso;
  AggregateStats Stats;
  /// Entries counted, and the sum of their weights: scale() maps weights
  /// back to execution counts of the same total.
  uint64_t WeightedEntries = 0;
  double TotalWeight = 0;
  /// Samples weighted without a period: their weights are relative only.
  uint64_t SamplesWithoutPeriod = 0;
  /// Branches and ranges by calling context (AggregateOptions::Contexts).
  ContextCounts Contexts;

  /// Weights with the sample period are estimates of executions already
  /// (period x 4 bytes per instruction / window bytes); relative weights
  /// are scaled to the number of entries seen.
  double scale() const {
    if (!SamplesWithoutPeriod)
      return 1.0;
    return TotalWeight > 0 ? double(WeightedEntries) / TotalWeight : 1.0;
  }
  /// The summed weight W of something seen Seen times, as an estimated
  /// execution count: never 0 for what was seen. Small periods (perf
  /// record -c 1) give weights far below 1 per observation, and rounding
  /// each to nearest made a sampled path vanish (two samples at period 1 or
  /// 5 gave a profile of zeros); the estimate may be small, but a path that
  /// was sampled ran at least once.
  uint64_t estimate(double W, uint64_t Seen) const;

  /// Frees the branch, range and IP counts once a profile is built from
  /// them; the statistics and samples per DSO stay.
  void releaseCounts() {
    decltype(Branches)().swap(Branches);
    decltype(Ranges)().swap(Ranges);
    decltype(Ips)().swap(Ips);
  }
  /// Adds another profile's counts (saturating), on up to Threads threads
  /// (the branches and the ranges apart).
  void merge(const RawProfile &O, unsigned Threads = 1);
  /// Multiplies every count and weight by W > 0 (`merge --weight`,
  /// `--decay`): counts to the nearest integer but never from seen to 0,
  /// weights to the nearest unit (quantizeWeight), so sums of scaled
  /// profiles stay exact. The statistics, which say what was read, stay.
  void scaleBy(double W);
  /// Renames DSO indices (Old -> New) in every key, merging counts: the same
  /// binary mapped from several paths becomes one.
  void renameDsos(const llvm::DenseMap<int, int> &OldToNew);
  /// Replaces every Loc L of every key by Map(L), merging counts of keys
  /// that become equal. Samples per DSO stay as they are.
  void rekey(llvm::function_ref<Loc(Loc)> Map);
};

/// Counts the branch stacks of samples into a RawProfile, given the
/// process mappings in force. One per thread.
class alignas(128) SampleCounter {
public:
  SampleCounter(const AggregateOptions &Opts) : Opts(Opts) {}
  /// Counts one sample's branch stack (newest entry first).
  /// Period is the sample's period (events between samples), 0 if the
  /// recording did not save it.
  /// Callchain is the sample's call stack (PERF_SAMPLE_CALLCHAIN), if any.
  /// IpMode says where the IP is looked up (the sample's cpumode).
  void count(const ProcessMaps &Maps, uint32_t Pid, uint64_t Ip,
             AddrMode IpMode, uint64_t Period, llvm::ArrayRef<BranchEntry> Br,
             llvm::ArrayRef<ulittle64> Callchain = {});
  /// Applies the --pid filter, then counts.
  void countIfSelected(const ProcessMaps &Maps, const Sample &S);
  /// The Loc of runtime address A in process Pid (ExternalLoc if unmapped),
  /// looked up in the maps Mode names.
  Loc locate(const ProcessMaps &Maps, uint32_t Pid, uint64_t A,
             AddrMode Mode = AddrMode::Either) {
    // The last two user mappings found answer most lookups (two per entry
    // and one per call-stack frame): checked here, inline.
    if (Mode != AddrMode::Kernel && Mode != AddrMode::None && Pid == CachePid)
      for (const CachedMapping &M : CacheMap)
        if (A - M.Start < M.Len)
          return A + M.Delta;
    return locateSlow(Maps, Pid, A, Mode);
  }
  /// Forget the cached mappings (the maps changed).
  void invalidate() {
    CacheMap[0] = CacheMap[1] = CachedMapping();
    CacheKernelValid = false;
  }
  /// Moves the counted traces into Profile's branches and ranges.
  void finalize();
  RawProfile Profile;

  /// A taken branch and the run after it: From -> To, then straight on to
  /// Next (the newer entry's source), or NoNext.
  struct TraceKey {
    Loc From = 0, To = 0, Next = 0;
    bool operator==(const TraceKey &O) const {
      return From == O.From && To == O.To && Next == O.Next;
    }
  };
  struct TraceCount {
    uint64_t Count = 0, Mispred = 0, Cycles = 0;
    double Weight = 0;
  };
  /// Below any real Loc (those have a DSO in the top bits), above External.
  static constexpr Loc NoNext = 1;

private:
  const AggregateOptions &Opts;
  /// The last mappings found in a process's maps, and in the kernel's: a
  /// hit in one never answers a lookup meant for the other.
  uint32_t CachePid = ~0u;
  /// The process's last two: branch stacks go back and forth between a
  /// program and its libraries (gawk's CSSPGO recording: 22% of the
  /// lookups missed the last mapping found, 740k searches of the maps, 6%
  /// of the run's instructions). A new one replaces the older of the two
  /// (CacheNewest indexes the newer); an empty one (Len 0) matches
  /// nothing. Each keeps what makes a Loc of an address in one addition
  /// (fewer instructions per lookup: Lua's CSSPGO recording looks up 37M
  /// addresses).
  struct CachedMapping {
    uint64_t Start = 0, Len = 0;
    /// A + Delta is makeLoc(Dso, fileOffset(A)) for A inside.
    uint64_t Delta = 0;
  };
  CachedMapping CacheMap[2];
  unsigned CacheNewest = 0;
  Mapping CacheKernel;
  bool CacheKernelValid = false;
  Loc locateUser(const ProcessMaps &Maps, uint32_t Pid, uint64_t A);
  Loc locateSlow(const ProcessMaps &Maps, uint32_t Pid, uint64_t A,
                 AddrMode Mode);
  Loc locateKernel(const ProcessMaps &Maps, uint64_t A);
  /// Per-sample scratch (no allocation per sample once warmed up).
  std::vector<Loc> From, To;
  /// Every trace met, by id (the order first met): its key and counts
  /// side by side, so counting a trace touches one record. With contexts,
  /// the record also keeps the step it was last unwound at (see Step).
  /// A step of the unwinding as a trace's record keeps it: the context
  /// it was met in, the step (in Steps), and what undoing the trace's
  /// branch gives.
  struct StepMemo {
    uint32_t Ctx = ~0u, Step = 0, NewCtx = 0;
    bool Mismatch = false;
  };
  struct Trace {
    TraceKey Key;
    TraceCount Counts;
    /// The step of the context the trace was last met in while unwinding:
    /// a trace in a loop is met again and again in one context, and this
    /// answers without the step map. In the trace's record, which
    /// counting the entry has just touched, rather than a separate array:
    /// the next context was two dependent loads per entry (this array's,
    /// then the step's), on the unwinding's critical path.
    StepMemo Last;
    /// The one met before, in another context (stepAt() swaps the two):
    /// jq's CSSPGO recording missed the last one on 827k of 2.7M entries;
    /// with this one, 1.21G -> 1.19G instructions, 160 -> 155 ms (-j2, 11
    /// interleaved). An earlier try in a separate array measured under 1%
    /// on gawk and sqlite.
    StepMemo Prev;
  };
  std::vector<Trace> Traces;
  /// The traces' index: open addressing with linear probing over a power
  /// of two slots, at most half full; a slot is 0 (empty) or the key's
  /// hash's low 32 bits << 32 | (id + 1), so a probe rarely reads a record
  /// that is not the one sought. At 8 bytes a slot it stays in the L2
  /// cache where a DenseMap of keys and ids (32-byte buckets) did not:
  /// the bucket's load and then the counts' were two cache misses per
  /// branch entry, 23% of count()'s cycles on Lua's CSSPGO recording.
  static constexpr unsigned MinTraceSlotsLog2 = 9; ///< 4 KB
  std::vector<uint64_t> TraceSlots =
      std::vector<uint64_t>(size_t(1) << MinTraceSlotsLog2);
  /// 64 - log2(TraceSlots.size()): a hash's top bits index the slots.
  unsigned TraceShift = 64 - MinTraceSlotsLog2;
  /// The id of trace K, added with zero counts if new.
  uint32_t traceId(const TraceKey &K);
  /// Adds trace K, whose hash is H, in empty slot Slot.
  uint32_t addTrace(const TraceKey &K, uint64_t H, size_t Slot);
  void growTraceSlots();
  /// The trace id of each entry of the sample being counted (~0u: not
  /// usable).
  std::vector<uint32_t> TraceOf;
  /// Per DSO index: -1 not known yet, 0 not the context binary, 1 it is.
  std::vector<int8_t> IsContextBinary;
  /// The context oracle's answers by file offset, each asked once per
  /// thread: the oracle decodes and searches a function for a question
  /// (BinaryTransferOracle), a third of the CPU of a CSSPGO profile (Lua,
  /// 562 MB perf.data) when asked for every branch-stack entry.
  struct OracleAnswers {
    int8_t Kind = -1, ReturnSite = -1; ///< -1: not asked yet
    uint64_t ReturnOffset = 0;
  };
  llvm::DenseMap<uint64_t, OracleAnswers> OracleMemo;
  OracleAnswers &oracleAt(const TransferOracle &O, uint64_t Off, bool Site);
  bool inContextBinary(const ProcessMaps &Maps, Loc L);
  /// One step of the unwinding: an entry's trace (its branch From -> To
  /// and the run to the newer entry's source, the same key count() uses)
  /// met in context Ctx, as Ctx << 32 | the trace's id. The range ran in
  /// Ctx, the branch in the context after undoing it, which depends on
  /// nothing else: it is worked out once (oracle, trie) and each later
  /// meeting is one hash update on a 64-bit key; the ranges and branches
  /// are split out in finalize(). (Lua's CSSPGO recording: 18.6M entries,
  /// about 11k distinct steps per thread; per entry this was two lookups
  /// of 20-byte keys, the oracle's memo and the context binary's check.)
  struct Step {
    /// The context of the branch (after undoing it).
    uint32_t NewCtx = 0;
    /// The call did not match the stack: unwinding stops here.
    bool Mismatch = false;
    /// Undoing the branch dropped the context's outermost frame.
    bool DepthCut = false;
    uint64_t Count = 0;
    double Weight = 0;
  };
  /// Every step met, in the order first met, and where each is by key.
  std::vector<Step> Steps;
  llvm::DenseMap<uint64_t, uint32_t> StepIndex;
  /// Sets trace Id's last step (Trace::Last) to the one
  /// met in context Ctx: its previous step, or the step map's lookup (the
  /// map's lookups were 15.5% of gawk's CSSPGO profile, bench/pgo
  /// recording 1, before traces kept their last step).
  void stepAt(const ProcessMaps &Maps, uint32_t Ctx, uint32_t Id, Loc From,
              Loc To);
  /// The context at the IP of a call stack's user frames (return
  /// addresses, innermost first), as the trie interns it. Call stacks
  /// repeat from sample to sample, and the walk costs a lookup and an
  /// intern per frame (Lua: about 25 frames, half of the unwinding's
  /// instructions), so contexts are kept by stack, for one version of the
  /// maps, up to StackMemoFrames frames.
  uint32_t contextOfStack(const ProcessMaps &Maps, uint32_t Pid,
                          llvm::ArrayRef<ulittle64> Frames, bool Marker);
  uint32_t walkStack(const ProcessMaps &Maps, uint32_t Pid,
                     llvm::ArrayRef<ulittle64> Frames, bool Marker);
  struct StackMemo {
    uint32_t Pid = 0, Len = 0, Ctx = 0;
    bool Marker = false;
    size_t First = 0; ///< in StackFrames
  };
  static constexpr size_t StackMemoFrames = size_t(1) << 22;
  llvm::DenseMap<uint64_t, StackMemo> Stacks;
  std::vector<uint64_t> StackFrames;
  uint64_t StacksVersion = 0;
  /// What undoing branch From -> To does to context Ctx.
  Step unwindStep(const ProcessMaps &Maps, uint32_t Ctx, Loc From, Loc To);
  /// Unwinds the branch stack against the call stack (Contexts.h); From
  /// and To hold the entries' Locs.
  void countContexts(const ProcessMaps &Maps, uint32_t Pid,
                     llvm::ArrayRef<ulittle64> Chain,
                     llvm::ArrayRef<BranchEntry> Br, size_t First,
                     double Weight);
};

/// Consumes events from a reader and fills a RawProfile. With several
/// threads, samples are copied into batches that worker threads count into
/// their own RawProfiles, merged by finish(); each batch carries the
/// (immutable) mappings in force when its samples were taken, so side-band
/// records keep their order relative to samples.
struct ReportCounts;

class LbrAggregator : public PerfEventHandler {
public:
  explicit LbrAggregator(AggregateOptions Opts);
  ~LbrAggregator() override;
  llvm::Error onSample(const Sample &S, const RecordInfo &R) override;
  llvm::Error onMmap(const MmapEvent &E, const RecordInfo &R) override;
  llvm::Error onComm(const CommEvent &E, const RecordInfo &R) override;
  llvm::Error onTask(const TaskEvent &E, const RecordInfo &R) override;
  /// With worker threads, samples are decoded by the workers, straight from
  /// the reader's buffers (kept alive by the batch), not on the reading
  /// thread.
  bool wantsRawSamples() const override { return Pool != nullptr; }
  llvm::Error onRawSample(const RecordInfo &R, unsigned AttrIndex,
                          const SampleDecoder &D) override;

  /// Waits for the workers and merges their counts. Call once after the
  /// last input, before profile(). Fails if a worker found a malformed
  /// sample.
  llvm::Error finish();
  /// Names the input being read (for errors found by workers).
  void setInputName(llvm::StringRef Name) { InputName = Name.str(); }
  RawProfile &profile() { return Main.Profile; }
  /// Call between input files: pids and mappings belong to one recording,
  /// while DSO numbering (and so every Loc) stays shared.
  void startNewInput();
  /// The build-id table of the input about to be read (file mode has it
  /// before the samples): mapped files are told apart by it
  /// (ProcessMaps::dsoIndex).
  void setBuildIdTable(llvm::ArrayRef<BuildIdEntry> Table) {
    mutableMaps().setBuildIdTable(Table);
  }
  const ProcessMaps &maps() const { return *Maps; }
  const AggregateOptions &options() const { return Opts; }

  /// Adds exact counts (from an emulator's truth, not from samples): a
  /// taken branch / a straight-line run [Begin, End] executed Count times.
  /// Adds a raw profile's counts (RawProfileFile.h), its files interned
  /// by path and build-id as mapped files are, so their DSO indices follow
  /// the order they were first seen in. Report, if given, holds the same
  /// raw profile's report counts: they are renumbered alike (the caller
  /// adds them where it keeps its own).
  void importRaw(RawProfile &&Counts, llvm::ArrayRef<DsoInfo> Files,
                 ReportCounts *Report = nullptr);
  void addExactBranch(uint32_t Pid, uint64_t From, uint64_t To,
                      uint64_t Count);
  void addExactRange(uint32_t Pid, uint64_t Begin, uint64_t End,
                     uint64_t Count);

  struct Batch;
  class Workers;

private:
  /// The maps, copied first if a batch in flight still uses them.
  ProcessMaps &mutableMaps();
  void flushBatch();

  AggregateOptions Opts;
  std::shared_ptr<ProcessMaps> Maps;
  SampleCounter Main;
  std::unique_ptr<Workers> Pool;
  std::unique_ptr<Batch> Current;
  std::string InputName;
};

/// Prints "  COUNT  PATH" per DSO, most samples first ([unknown] for
/// samples outside any mapped file): dump --summary's and --dump=dsos'
/// table.
void printSamplesPerDso(const llvm::DenseMap<int, uint64_t> &PerDso,
                        const ProcessMaps &Maps, llvm::raw_ostream &OS);

/// Writes P as sorted text: "B from to entries mispred estimate" and
/// "R begin end entries estimate" lines, locations as dso:0xoffset;
/// estimate is the window-weighted execution count.
void printRawProfile(const RawProfile &P, const ProcessMaps &Maps,
                     llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
