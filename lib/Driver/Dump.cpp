//===- Dump.cpp - sample lines and input summaries ------------------------===//
//
// Sample lines reproduce perf script's tokens:
//   PID IP FROM/TO/M|P|-/X|-/A|-/CYCLES/TYPE ...
// e.g. "  1234           401136 0x401136/0x401120/P/-/-/0/COND ..." (perf
// 6.1 leaves TYPE empty when the type was not recorded: ".../0/").
// Side-band lines reproduce perf's PERF_RECORD_* renderings.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Driver/Dump.h"
#include "lbr2prof/Driver/Diagnostics.h"
#include "ProgressHandler.h"
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Aggregate/ProcessMaps.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/Progress.h"
#include "lbr2prof/Writers/GcovAfdo.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <map>

using namespace llvm;
using namespace lbr2prof::perfabi;

namespace lbr2prof {
namespace {

void printBranch(raw_ostream &OS, const BranchEntry &B) {
  char Pred = B.predicted() ? 'P' : B.mispred() ? 'M' : '-';
  OS << " 0x";
  OS.write_hex(B.from());
  OS << "/0x";
  OS.write_hex(B.to());
  OS << '/' << Pred << '/' << (B.inTx() ? 'X' : '-') << '/'
     << (B.abort() ? 'A' : '-') << '/' << B.cycles() << '/';
  // perf 6.1 prints the type name, empty when unknown, and no spec field;
  // an extended type prints its new_type name.
  static const char *const NewTypes[] = {"FAULT_ALGN", "FAULT_DATA",
                                         "FAULT_INST", "ARCH_1",
                                         "ARCH_2",     "ARCH_3",
                                         "ARCH_4",     "ARCH_5"};
  if (B.type() == PERF_BR_EXTEND_ABI)
    OS << (B.newType() < 8 ? NewTypes[B.newType()] : "");
  else
    OS << branchTypeName(B.type());
}

/// The pid perf script shows for a record: the sample_id's, or for
/// side-band records without sample_id_all the record's own (as perf's
/// process_*_event handlers substitute it), else -1.
int32_t identPid(const SampleId &Id, int64_t Own = -1) {
  if (Id.Has & PERF_SAMPLE_TID)
    return int32_t(Id.Pid);
  return int32_t(Own);
}

/// Frames perf script shows of a call chain (its --max-stack default).
constexpr unsigned PerfScriptMaxStack = 127;

bool isGuest(unsigned CpuMode) {
  return CpuMode == PERF_RECORD_MISC_GUEST_KERNEL ||
         CpuMode == PERF_RECORD_MISC_GUEST_USER;
}

/// Prints samples and side-band records as perf script does.
class LinePrinter : public PerfEventHandler {
public:
  LinePrinter(raw_ostream &OS, const DumpOptions &O) : OS(OS), Opts(O) {}
  Error onSample(const Sample &S, const RecordInfo &) override {
    // perf script drops guest samples when it has no guest machine.
    if (isGuest(S.cpumode()))
      return Error::success();
    unsigned Times = printTimes(S);
    for (unsigned K = 0; K < Times; ++K)
      printSample(S);
    return Error::success();
  }

  /// How many times perf script shows a sample: with PERF_SAMPLE_READ it
  /// delivers the sample once per read value whose id names an event (a
  /// group read gives one per member), and drops it when none does.
  unsigned printTimes(const Sample &S) const {
    if (!Attrs || S.AttrIndex >= Attrs->size())
      return 1;
    const EventAttr &A = (*Attrs)[S.AttrIndex];
    if (!(A.SampleType & PERF_SAMPLE_READ))
      return 1;
    uint64_t RF = A.ReadFormat;
    if (!(RF & PERF_FORMAT_ID))
      return 0;
    unsigned Times = !!(RF & PERF_FORMAT_TOTAL_TIME_ENABLED) +
                     !!(RF & PERF_FORMAT_TOTAL_TIME_RUNNING);
    unsigned Per = 2 + !!(RF & PERF_FORMAT_LOST);
    ArrayRef<ulittle64> R = S.Read;
    unsigned N = 0;
    auto known = [&](uint64_t Id) {
      for (const EventAttr &E : *Attrs)
        for (uint64_t X : E.Ids)
          if (X == Id)
            return true;
      return false;
    };
    if (RF & PERF_FORMAT_GROUP) {
      for (size_t At = 1 + Times; At + Per <= R.size();
           At += Per)
        N += known(R[At + 1]);
      return N;
    }
    // value, [enabled], [running], id, [lost]
    return R.size() > 1 + Times && known(R[1 + Times]) ? 1 : 0;
  }

  void printSample(const Sample &S) {
    OS << format("%5d ", identPid(S.Ident));
    if (Attrs && S.AttrIndex < Attrs->size() &&
        ((*Attrs)[S.AttrIndex].SampleType & PERF_SAMPLE_CALLCHAIN)) {
      // With a call chain, perf prints its frames in place of the IP, one
      // per line, then the branch stack on a line of its own.
      // perf script resolves at most --max-stack frames (default 127,
      // PERF_MAX_STACK_DEPTH); context markers do not count.
      OS << '\n';
      unsigned Shown = 0;
      for (uint64_t F : S.Callchain)
        if (F < PERF_CONTEXT_MAX && Shown++ < PerfScriptMaxStack)
          OS << '\t' << format("%16" PRIx64, F) << '\n';
    } else {
      OS << format("%16" PRIx64, S.Ip);
    }
    for (const BranchEntry &B : S.Branches)
      printBranch(OS, B);
    OS << '\n';
  }
  /// Events of the input, to know which samples carry call chains.
  const std::vector<EventAttr> *Attrs = nullptr;
  Error onMmap(const MmapEvent &E, const RecordInfo &) override {
    if (!Opts.ShowMmapEvents)
      return Error::success();
    OS << format("%5d ", identPid(E.Ident, int32_t(E.Pid)));
    if (E.IsMmap2) {
      OS << "PERF_RECORD_MMAP2 " << int32_t(E.Pid) << '/' << int32_t(E.Tid)
         << ": [" << hex(E.Addr) << '(' << hex(E.Len) << ") @ " << hex(E.PgOff);
      if (E.hasBuildId())
        OS << " <" << toHex(E.BuildId, /*LowerCase=*/true) << '>';
      else
        OS << format(" %02x:%02x %" PRIu64 " %" PRIu64, E.Maj, E.Min, E.Ino,
                     E.InoGeneration);
      OS << "]: " << ((E.Prot & 1) ? 'r' : '-') << ((E.Prot & 2) ? 'w' : '-')
         << ((E.Prot & 4) ? 'x' : '-') << ((E.Flags & 1) ? 's' : 'p') << ' '
         << E.Filename << '\n';
    } else {
      OS << "PERF_RECORD_MMAP " << int32_t(E.Pid) << '/' << int32_t(E.Tid)
         << ": [" << hex(E.Addr) << '(' << hex(E.Len) << ") @ " << hex(E.PgOff)
         << "]: " << ((E.Misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x') << ' '
         << E.Filename << '\n';
    }
    return Error::success();
  }
  Error onComm(const CommEvent &E, const RecordInfo &) override {
    if (!Opts.ShowTaskEvents)
      return Error::success();
    OS << format("%5d ", identPid(E.Ident, int32_t(E.Pid))) << "PERF_RECORD_COMM"
       << (E.isExec() ? " exec" : "") << ": " << E.Comm << ':' << E.Pid << '/'
       << E.Tid << '\n';
    return Error::success();
  }
  Error onTask(const TaskEvent &E, const RecordInfo &) override {
    if (!Opts.ShowTaskEvents)
      return Error::success();
    OS << format("%5d ", identPid(E.Ident, int32_t(E.Pid)))
       << (E.IsFork ? "PERF_RECORD_FORK(" : "PERF_RECORD_EXIT(") << E.Pid
       << ':' << E.Tid << "):(" << E.PPid << ':' << E.PTid << ")\n";
    return Error::success();
  }

private:
  /// perf prints %#lx: "0" for zero, "0x..." otherwise.
  static std::string hex(uint64_t V) {
    return V ? "0x" + utohexstr(V, /*LowerCase=*/true) : "0";
  }
  raw_ostream &OS;
  const DumpOptions &Opts;
};

/// Counts what an input holds.
class SummaryCollector : public PerfEventHandler {
public:
  Error onRecord(const RecordInfo &R) override {
    ++ByType[R.Type];
    if (R.FromCompressed)
      ++Decompressed;
    return Error::success();
  }
  Error onSample(const Sample &S, const RecordInfo &) override {
    ++Samples;
    uint32_t Pid = identPid(S.Ident);
    ++PerPid[Pid];
    if (!S.Branches.empty()) {
      ++WithBranches;
      Entries += S.Branches.size();
      MinDepth = std::min<uint64_t>(MinDepth, S.Branches.size());
      MaxDepth = std::max<uint64_t>(MaxDepth, S.Branches.size());
      for (const BranchEntry &B : S.Branches) {
        Mispred += B.mispred();
        Cycles += B.cycles() != 0;
      }
    }
    if (S.HasHwIdx)
      ++WithHwIdx;
    const Mapping *M = Maps.find(Pid, S.Ip, addrModeOf(S.Misc));
    ++PerDso[M ? int(M->Dso) : -1];
    ++PerAttr[S.AttrIndex];
    return Error::success();
  }
  Error onMmap(const MmapEvent &E, const RecordInfo &) override {
    Maps.addMmap(E);
    return Error::success();
  }
  Error onComm(const CommEvent &E, const RecordInfo &) override {
    if (E.isExec())
      Maps.exec(E.Pid);
    if (E.Pid == E.Tid || !Comms.count(E.Pid))
      Comms[E.Pid] = E.Comm.str();
    return Error::success();
  }
  Error onTask(const TaskEvent &E, const RecordInfo &) override {
    if (E.IsFork)
      Maps.fork(E.Pid, E.PPid);
    return Error::success();
  }
  Error onLost(const LostEvent &E, const RecordInfo &) override {
    Lost += E.Lost;
    return Error::success();
  }

  void print(raw_ostream &OS, const EventSource &Src, StringRef Name);

private:
  std::map<uint32_t, uint64_t> ByType;
  uint64_t Decompressed = 0;
  uint64_t Samples = 0, WithBranches = 0, Entries = 0, WithHwIdx = 0;
  uint64_t MinDepth = ~0ULL, MaxDepth = 0, Mispred = 0, Cycles = 0, Lost = 0;
  DenseMap<uint64_t, uint64_t> PerPid;
  DenseMap<int, uint64_t> PerDso;
  std::map<unsigned, uint64_t> PerAttr;
  std::map<uint32_t, std::string> Comms;
  ProcessMaps Maps;
};

std::string sampleTypeString(uint64_t T) {
  static const char *const Names[] = {
      "IP",        "TID",        "TIME",         "ADDR",
      "READ",      "CALLCHAIN",  "ID",           "CPU",
      "PERIOD",    "STREAM_ID",  "RAW",          "BRANCH_STACK",
      "REGS_USER", "STACK_USER", "WEIGHT",       "DATA_SRC",
      "IDENTIFIER", "TRANSACTION", "REGS_INTR",  "PHYS_ADDR",
      "AUX",       "CGROUP",     "DATA_PAGE_SIZE", "CODE_PAGE_SIZE",
      "WEIGHT_STRUCT"};
  std::string S;
  for (unsigned I = 0; I < 25; ++I)
    if (T >> I & 1)
      S += (S.empty() ? "" : "|") + std::string(Names[I]);
  return S.empty() ? "0" : S;
}

std::string branchSampleTypeString(uint64_t T) {
  static const char *const Names[] = {
      "USER",     "KERNEL",   "HV",         "ANY",       "ANY_CALL",
      "ANY_RETURN", "IND_CALL", "ABORT_TX", "IN_TX",     "NO_TX",
      "COND",     "CALL_STACK", "IND_JUMP", "CALL",      "NO_FLAGS",
      "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE", "COUNTERS"};
  std::string S;
  for (unsigned I = 0; I < 20; ++I)
    if (T >> I & 1)
      S += (S.empty() ? "" : "|") + std::string(Names[I]);
  return S.empty() ? "0" : S;
}

void SummaryCollector::print(raw_ostream &OS, const EventSource &Src,
                             StringRef Name) {
  const PerfFileInfo &I = Src.info();
  OS << "file: " << Name << " (" << Src.formatName();
  if (I.FileSize)
    OS << ", " << I.FileSize << " bytes, data " << I.DataSize << " bytes at "
       << format_hex(I.DataOffset, 0);
  OS << ")\n";
  auto Str = [&](const char *Label, const std::string &V) {
    if (!V.empty())
      OS << "# " << Label << " : " << V << '\n';
  };
  Str("hostname", I.Hostname);
  Str("os release", I.OsRelease);
  Str("perf version", I.Version);
  Str("arch", I.Arch);
  if (I.Features.test(HEADER_NRCPUS)) {
    OS << "# nrcpus online : " << I.NrCpusOnline << '\n';
    OS << "# nrcpus avail : " << I.NrCpusAvail << '\n';
  }
  Str("cpudesc", I.CpuDesc);
  Str("cpuid", I.CpuId);
  if (I.TotalMemKb)
    OS << "# total memory : " << I.TotalMemKb << " kB\n";
  if (!I.Cmdline.empty())
    OS << "# cmdline : " << join(I.Cmdline, " ") << '\n';
  if (Src.formatName() != "perf script text")
    for (const EventAttr &A : I.Attrs) {
      OS << "# event : name = " << (A.Name.empty() ? "?" : A.Name)
         << ", type = " << A.Type << ", config = " << format_hex(A.Config, 0)
         << ", " << (A.freq() ? "sample_freq" : "sample_period") << " = "
         << A.SamplePeriodOrFreq
         << ", sample_type = " << sampleTypeString(A.SampleType);
      if (A.BranchSampleType)
        OS << ", branch_sample_type = "
           << branchSampleTypeString(A.BranchSampleType);
      if (A.sampleIdAll())
        OS << ", sample_id_all = 1";
      if (!A.Ids.empty()) {
        OS << ", id = {";
        for (size_t K = 0; K < A.Ids.size(); ++K)
          OS << (K ? ", " : " ") << A.Ids[K];
        OS << " }";
      }
      OS << '\n';
    }
  if (I.Features.test(HEADER_COMPRESSED))
    OS << "# compressed : " << (I.Compression.Type == 1 ? "Zstd" : "?")
       << ", level = " << I.Compression.Level
       << ", ratio = " << I.Compression.Ratio << '\n';
  for (const BuildIdEntry &B : I.BuildIds)
    OS << "# build-id : " << toHex(B.Id, true) << ' ' << B.Filename
       << " (pid " << B.Pid << ")\n";
  if (I.Features.any()) {
    OS << "# features :";
    for (unsigned F = 0; F < I.Features.size(); ++F)
      if (I.Features.test(F))
        OS << ' ' << F;
    OS << '\n';
  }

  OS << "records:\n";
  uint64_t Total = 0;
  for (auto &[T, N] : ByType) {
    StringRef TN = recordTypeName(T);
    OS << format("  %-20s %12" PRIu64 "\n",
                 (TN.empty() ? ("type " + Twine(T)).str() : TN.str()).c_str(),
                 N);
    Total += N;
  }
  OS << format("  %-20s %12" PRIu64 "\n", (const char *)"TOTAL", Total);
  if (Decompressed)
    OS << "  (" << Decompressed << " of them decompressed from zstd chunks)\n";
  if (Lost)
    OS << "lost samples: " << Lost << '\n';
  OS << "samples: " << Samples << '\n';
  if (I.Attrs.size() > 1)
    for (auto &[A, N] : PerAttr)
      OS << "  event " << A << " ("
         << (I.Attrs[A].Name.empty() ? "?" : I.Attrs[A].Name) << "): " << N
         << '\n';
  OS << "samples with branch stack: " << WithBranches;
  if (WithBranches) {
    OS << format(", depth min %" PRIu64 " max %" PRIu64 " mean %.1f", MinDepth,
                 MaxDepth, double(Entries) / WithBranches);
    OS << ", entries " << Entries << ", mispredicted " << Mispred
       << ", with cycles " << Cycles;
  }
  OS << '\n';
  if (WithHwIdx)
    OS << "samples with hw_idx: " << WithHwIdx << '\n';
  if (Samples && !WithBranches)
    OS << "note: no sample has a branch stack; record with `perf record -b` "
          "(or -j any,u) to get LBR data\n";

  std::vector<std::pair<uint64_t, uint64_t>> Pids(PerPid.begin(), PerPid.end());
  std::sort(Pids.begin(), Pids.end(), [](auto &A, auto &B) {
    return A.second != B.second ? A.second > B.second : A.first < B.first;
  });
  OS << "samples per pid:\n";
  for (auto &[P, N] : Pids) {
    auto C = Comms.find(P);
    OS << format("  %7d %12" PRIu64 "  %s\n", int32_t(P), N,
                 C == Comms.end() ? "" : C->second.c_str());
  }
  OS << "samples per dso:\n";
  printSamplesPerDso(PerDso, Maps, OS);
}

/// Keeps the faults the reader survived for the end of the run.
void collectWarnings(const EventSource &Src, Diagnostics &Diags) {
  for (const std::string &W : Src.warnings())
    Diags.warning(W);
}

} // namespace

static Error dump(const DumpOptions &Opts, raw_ostream &OS,
                  Diagnostics &Diags) {
  for (const std::string &In : Opts.Inputs) {
    PerfReaderOptions RO;
    Expected<std::unique_ptr<EventSource>> Src = openEventSource(In, RO);
    if (!Src)
      return Src.takeError();
    if (Opts.Summary) {
      SummaryCollector C;
      // The progress line is cleared before any warning is printed.
      Error E = [&] {
        ProgressHandler PH(C, **Src, "reading " + In);
        return (*Src)->run(PH);
      }();
      collectWarnings(**Src, Diags);
      if (E)
        return E;
      C.print(OS, **Src, In);
    } else {
      LinePrinter P(OS, Opts);
      P.Attrs = &(*Src)->info().Attrs;
      Error E = (*Src)->run(P);
      OS.flush();
      collectWarnings(**Src, Diags);
      if (E)
        return E;
    }
  }
  return Error::success();
}

/// If Path is a GCC AutoFDO profile (gcov magic): prints it in the text
/// sample-profile layout and returns true.
static Expected<bool> dumpGcovAfdo(const DumpOptions &Opts, StringRef Path,
                                   raw_ostream &OS) {
  if (Path == "-")
    return false;
  ErrorOr<std::unique_ptr<MemoryBuffer>> B =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!B || !isGcovAfdo((*B)->getBuffer()))
    return false; // The perf.data reader says what is wrong with it.
  if (Opts.Inputs.size() != 1 || Opts.Summary || Opts.ShowMmapEvents ||
      Opts.ShowTaskEvents)
    return makeError("{0}: a GCC AutoFDO profile is dumped alone and "
                     "without options",
                     Path);
  Expected<GcovAfdoProfile> P = readGcovAfdo((*B)->getMemBufferRef());
  if (!P)
    return P.takeError();
  if (Error E = printGcovAfdo(*P, OS))
    return std::move(E);
  return true;
}

Error runDump(const DumpOptions &Opts, raw_ostream &OS) {
  for (const std::string &In : Opts.Inputs) {
    Expected<bool> Afdo = dumpGcovAfdo(Opts, In, OS);
    if (!Afdo)
      return Afdo.takeError();
    if (*Afdo)
      return Error::success();
  }
  // The reader's warnings go to stderr (stdout carries the dump) once the
  // run succeeds: a run that fails says one line, its error, as generate
  // and report do (a flipped bit gave a feature warning, then an error).
  Diagnostics Diags;
  if (Error E = dump(Opts, OS, Diags))
    return E;
  Diags.print(errs());
  return Error::success();
}

} // namespace lbr2prof
