//===- Builder.cpp - set-up directives and record dispatch ----------------===//
//
// Implements the non-record directives (header, attr, feature, build_id,
// compress, label) and the checks perf applies when it opens a file with
// several events (same sample_id_all, ID/IDENTIFIER at the same place),
// so that a bad input fails here with a line number instead of making
// `perf script` refuse the output.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

#include "ByteWriter.h"
#include "Records.h"
#include "lbr2prof/PerfData/PerfABI.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace lbr2prof {
namespace t2p {

using namespace perfabi;

namespace {

// Index = bit number of PERF_SAMPLE_*.
const char *const SampleTypeNames[] = {"IP",
                                       "TID",
                                       "TIME",
                                       "ADDR",
                                       "READ",
                                       "CALLCHAIN",
                                       "ID",
                                       "CPU",
                                       "PERIOD",
                                       "STREAM_ID",
                                       "RAW",
                                       "BRANCH_STACK",
                                       "REGS_USER",
                                       "STACK_USER",
                                       "WEIGHT",
                                       "DATA_SRC",
                                       "IDENTIFIER",
                                       "TRANSACTION",
                                       "REGS_INTR",
                                       "PHYS_ADDR",
                                       "AUX",
                                       "CGROUP",
                                       "DATA_PAGE_SIZE",
                                       "CODE_PAGE_SIZE",
                                       "WEIGHT_STRUCT"};
// Index = bit number of PERF_SAMPLE_BRANCH_*.
const char *const BranchSampleNames[] = {
    "USER",       "KERNEL",     "HV",       "ANY",       "ANY_CALL",
    "ANY_RETURN", "IND_CALL",   "ABORT_TX", "IN_TX",     "NO_TX",
    "COND",       "CALL_STACK", "IND_JUMP", "CALL",      "NO_FLAGS",
    "NO_CYCLES",  "TYPE_SAVE",  "HW_INDEX", "PRIV_SAVE", "COUNTERS"};
// Index = bit number of PERF_FORMAT_*.
const char *const ReadFormatNames[] = {
    "TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"};

/// One-bit flags of perf_event_attr, by their uapi field names.
struct FlagBit {
  const char *Name;
  unsigned Bit;
};
const FlagBit FlagBits[] = {
    {"disabled", attrbits::Disabled},
    {"inherit", attrbits::Inherit},
    {"pinned", attrbits::Pinned},
    {"exclusive", attrbits::Exclusive},
    {"exclude_user", attrbits::ExcludeUser},
    {"exclude_kernel", attrbits::ExcludeKernel},
    {"exclude_hv", attrbits::ExcludeHv},
    {"exclude_idle", attrbits::ExcludeIdle},
    {"mmap", attrbits::Mmap},
    {"comm", attrbits::Comm},
    {"inherit_stat", attrbits::InheritStat},
    {"enable_on_exec", attrbits::EnableOnExec},
    {"task", attrbits::Task},
    {"watermark", attrbits::Watermark},
    {"mmap_data", attrbits::MmapData},
    {"sample_id_all", attrbits::SampleIdAll},
    {"exclude_host", attrbits::ExcludeHost},
    {"exclude_guest", attrbits::ExcludeGuest},
    {"exclude_callchain_kernel", attrbits::ExcludeCallchainKernel},
    {"exclude_callchain_user", attrbits::ExcludeCallchainUser},
    {"mmap2", attrbits::Mmap2},
    {"comm_exec", attrbits::CommExec},
    {"use_clockid", attrbits::UseClockid},
    {"context_switch", attrbits::ContextSwitch},
    {"write_backward", attrbits::WriteBackward},
    {"namespaces", attrbits::Namespaces},
    {"ksymbol", attrbits::Ksymbol},
    {"bpf_event", attrbits::BpfEvent},
    {"aux_output", attrbits::AuxOutput},
    {"cgroup", attrbits::Cgroup},
    {"text_poke", attrbits::TextPoke},
    {"build_id", attrbits::BuildId},
    {"inherit_thread", attrbits::InheritThread},
    {"remove_on_exec", attrbits::RemoveOnExec},
    {"sigtrap", attrbits::Sigtrap},
};

/// perf's names for the generic hardware and software events, used when
/// an attr line gives no name=.
std::string defaultEventName(uint32_t Type, uint64_t Config) {
  static const char *const Hw[] = {"cycles",
                                   "instructions",
                                   "cache-references",
                                   "cache-misses",
                                   "branch-instructions",
                                   "branch-misses",
                                   "bus-cycles",
                                   "stalled-cycles-frontend",
                                   "stalled-cycles-backend",
                                   "ref-cycles"};
  static const char *const Sw[] = {
      "cpu-clock",        "task-clock",   "page-faults",  "context-switches",
      "cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
      "emulation-faults", "dummy"};
  if (Type == 0 && Config < 10)
    return Hw[Config];
  if (Type == 1 && Config < 10)
    return Sw[Config];
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "type%u/config=0x%llx", Type,
           (unsigned long long)Config);
  return Buf;
}

void put(std::vector<uint8_t> &Img, size_t Off, uint64_t V, unsigned N) {
  for (unsigned I = 0; I < N; ++I)
    Img[Off + I] = (uint8_t)(V >> (8 * I));
}

/// perf's evsel id_pos: where ID sits in a sample, -1 without one.
int idPos(uint64_t T) {
  if (T & PERF_SAMPLE_IDENTIFIER)
    return 0;
  if (!(T & PERF_SAMPLE_ID))
    return -1;
  return !!(T & PERF_SAMPLE_IP) + !!(T & PERF_SAMPLE_TID) +
         !!(T & PERF_SAMPLE_TIME) + !!(T & PERF_SAMPLE_ADDR);
}

/// perf's evsel is_pos: ID's u64 position from the end of a trailer.
int isPos(uint64_t T) {
  if (T & PERF_SAMPLE_IDENTIFIER)
    return 1;
  if (!(T & PERF_SAMPLE_ID))
    return -1;
  return 1 + !!(T & PERF_SAMPLE_CPU) + !!(T & PERF_SAMPLE_STREAM_ID);
}

} // namespace

bool Builder::add(Directive &Dir) {
  ArgReader A(Dir, D, Labels);
  const std::string &K = Dir.Keyword;
  if (K == "header")
    return addHeader(A);
  if (K == "attr")
    return addAttr(A);
  if (K == "feature")
    return addFeature(A);
  if (K == "build_id")
    return addBuildId(A);
  if (K == "compress")
    return addCompress(A);
  if (K == "label")
    return addLabel(A);
  if (!isRecordKeyword(K))
    return D.error(Dir.Line,
                   "unknown directive '" + K +
                       "' (expected header, attr, feature, build_id, "
                       "compress, label, sample, mmap, mmap2, comm, fork, "
                       "exit, lost, lost_samples, throttle, unthrottle, aux, "
                       "auxtrace, auxtrace_info, itrace_start, switch, "
                       "finished_round, finished_init or raw_record)");
  if (!Frozen && !freezeAttrs(Dir.Line))
    return false;
  DataItem Item;
  Item.Line = Dir.Line;
  // perf record writes FINISHED_ROUND outside the compressed stream.
  Item.Group = K == "finished_round" ? -1 : OpenGroup;
  if (!encodeRecord(A, Desc, Item.Bytes))
    return false;
  Desc.Data.push_back(std::move(Item));
  return true;
}

bool Builder::addHeader(ArgReader &A) {
  if (A.has("mode")) {
    std::string M = A.str("mode");
    if (M != "file" && M != "pipe")
      return A.error("mode: expected file or pipe, found '" + M + "'");
    Desc.Pipe = M == "pipe";
  }
  if (A.has("attr_size")) {
    uint64_t S = A.u64("attr_size");
    if (S < AttrSizeVer0 || S > AttrImageSize || S % 8)
      return A.error("attr_size: expected a multiple of 8 in 64..136");
    if (Frozen)
      return A.error("attr_size must be set before the first record");
    Desc.AttrSize = (uint32_t)S;
  }
  Desc.FinishedInit = A.flag("finished_init", Desc.FinishedInit);
  Desc.Validate = A.flag("validate", Desc.Validate);
  return A.finish();
}

bool Builder::addAttr(ArgReader &A) {
  if (Frozen)
    return A.error("'attr' lines must come before the first record");
  AttrDesc At;
  At.Line = A.line();
  unsigned Idx = (unsigned)Desc.Attrs.size();
  std::vector<uint8_t> &Img = At.Image;

  uint32_t Type = (uint32_t)A.uN("type", 32, 0);
  uint64_t Config = A.u64("config", 0);
  At.Name = A.str("name", defaultEventName(Type, Config));
  put(Img, 0, Type, 4);
  put(Img, 8, Config, 8);
  bool Freq = false;
  if (A.has("sample_period") && A.has("sample_freq"))
    return A.error("give sample_period= or sample_freq=, not both");
  if (A.has("sample_freq")) {
    Freq = true;
    put(Img, 16, A.u64("sample_freq"), 8);
  } else {
    put(Img, 16, A.u64("sample_period", 0), 8);
  }
  At.SampleType = A.bits("sample_type", SampleTypeNames, 25,
                         PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                             PERF_SAMPLE_PERIOD);
  At.ReadFormat = A.bits("read_format", ReadFormatNames, 5);
  At.BranchSampleType = A.bits("branch_sample_type", BranchSampleNames, 20);
  At.RegsUser = A.u64("sample_regs_user");
  At.RegsIntr = A.u64("sample_regs_intr");
  At.StackUser = (uint32_t)A.uN("sample_stack_user", 32);
  if (At.StackUser % 8)
    return A.error("sample_stack_user must be a multiple of 8");
  put(Img, 24, At.SampleType, 8);
  put(Img, 32, At.ReadFormat, 8);
  put(Img, 48, A.uN("wakeup_events", 32), 4);
  put(Img, 52, A.uN("bp_type", 32), 4);
  put(Img, 56, A.u64("config1"), 8);
  put(Img, 64, A.u64("config2"), 8);
  put(Img, 72, At.BranchSampleType, 8);
  put(Img, 80, At.RegsUser, 8);
  put(Img, 88, At.StackUser, 4);
  put(Img, 92, A.uN("clockid", 32), 4);
  put(Img, 96, At.RegsIntr, 8);
  put(Img, 104, A.uN("aux_watermark", 32), 4);
  put(Img, 108, A.uN("sample_max_stack", 16), 2);
  put(Img, 112, A.uN("aux_sample_size", 32), 4);
  put(Img, 120, A.u64("sig_data"), 8);
  put(Img, 128, A.u64("config3"), 8);

  // What `perf record` sets; the first event also tracks tasks and maps.
  uint64_t Flags = A.u64("flags", 0);
  if (!A.has("flags")) {
    for (unsigned B :
         {attrbits::Disabled, attrbits::Inherit, attrbits::EnableOnExec,
          attrbits::SampleIdAll, attrbits::ExcludeGuest})
      Flags |= 1ULL << B;
    if (Idx == 0)
      for (unsigned B : {attrbits::Mmap, attrbits::Comm, attrbits::Task,
                         attrbits::Mmap2, attrbits::CommExec})
        Flags |= 1ULL << B;
  }
  if (Freq)
    Flags |= 1ULL << attrbits::Freq;
  for (const FlagBit &F : FlagBits)
    if (A.has(F.Name)) {
      if (A.flag(F.Name))
        Flags |= 1ULL << F.Bit;
      else
        Flags &= ~(1ULL << F.Bit);
    }
  if (A.has("precise_ip")) {
    uint64_t P = A.u64("precise_ip");
    if (P > 3)
      return A.error("precise_ip: expected 0..3");
    Flags =
        (Flags & ~(3ULL << attrbits::PreciseIp)) | (P << attrbits::PreciseIp);
  }
  put(Img, 40, Flags, 8);
  At.SampleIdAll = (Flags >> attrbits::SampleIdAll) & 1;
  At.Ids = A.list("ids");
  if (!A.finish())
    return false;
  if ((At.SampleType & PERF_SAMPLE_WEIGHT) &&
      (At.SampleType & PERF_SAMPLE_WEIGHT_STRUCT))
    return A.error("WEIGHT and WEIGHT_STRUCT exclude each other");
  if (Desc.Validate && (At.SampleType & PERF_SAMPLE_READ) &&
      !(At.ReadFormat & PERF_FORMAT_ID))
    return A.error("sample_type READ needs read_format ID (perf refuses the "
                   "file otherwise; 'header validate=0' to write it anyway)");
  Desc.Attrs.push_back(std::move(At));
  return true;
}

bool Builder::addFeature(ArgReader &A) {
  FeatureDesc &F = Desc.Features;
  auto Str = [&](const char *Key, std::optional<std::string> &Dst) {
    if (A.has(Key))
      Dst = A.str(Key);
  };
  Str("hostname", F.Hostname);
  Str("osrelease", F.OsRelease);
  Str("version", F.Version);
  Str("arch", F.Arch);
  Str("cpudesc", F.CpuDesc);
  Str("cpuid", F.CpuId);
  if (A.has("nrcpus")) {
    std::vector<uint64_t> N = A.list("nrcpus");
    if (N.size() != 2 || N[0] > UINT32_MAX || N[1] > UINT32_MAX)
      return A.error("nrcpus: expected ONLINE,AVAIL");
    F.NrCpus = std::make_pair((uint32_t)N[0], (uint32_t)N[1]);
  }
  if (A.has("total_mem"))
    F.TotalMem = A.u64("total_mem");
  if (A.has("cmdline"))
    F.Cmdline = splitAny(A.str("cmdline"), " \t");
  if (A.has("sample_time")) {
    std::vector<uint64_t> T = A.list("sample_time");
    if (T.size() != 2)
      return A.error("sample_time: expected FIRST,LAST");
    F.SampleTime = std::make_pair(T[0], T[1]);
  }
  if (A.has("branch_stack"))
    F.BranchStack = A.flag("branch_stack") ? 1 : 0;
  F.EventDesc = A.flag("event_desc", F.EventDesc);
  if (A.has("compressed_ratio"))
    F.CompRatio = (uint32_t)A.uN("compressed_ratio", 32);
  if (A.has("compressed_mmap_len"))
    F.CompMmapLen = (uint32_t)A.uN("compressed_mmap_len", 32);
  if (A.has("omit")) {
    static const char *const Known[] = {
        "hostname", "osrelease",  "version",    "arch",
        "nrcpus",   "event_desc", "compressed", "branch_stack"};
    for (const std::string &N : splitAny(A.str("omit"), ",|")) {
      bool Ok = false;
      for (const char *K : Known)
        Ok |= N == K;
      if (!Ok)
        return A.error("omit: '" + N +
                       "' is not a default feature (hostname,"
                       " osrelease, version, arch, nrcpus, event_desc, "
                       "compressed, branch_stack)");
      Desc.Omit.push_back(N);
    }
  }
  return A.finish();
}

bool Builder::addBuildId(ArgReader &A) {
  BuildIdDesc B;
  B.Pid = (int32_t)A.uN("pid", 32, (uint64_t)-1);
  if (!A.has("id") || !A.has("file"))
    return A.error("'build_id' needs id=HEX and file=PATH");
  B.Id = A.bytes("id");
  if (B.Id.size() > 20)
    return A.error("id: a build-id has at most 20 bytes");
  B.File = A.str("file");
  std::string M = A.str("cpumode", "user");
  if (M == "user")
    B.Misc = PERF_RECORD_MISC_USER;
  else if (M == "kernel")
    B.Misc = PERF_RECORD_MISC_KERNEL;
  else if (M == "guest_kernel")
    B.Misc = PERF_RECORD_MISC_GUEST_KERNEL;
  else if (M == "guest_user")
    B.Misc = PERF_RECORD_MISC_GUEST_USER;
  else
    return A.error("cpumode: expected user, kernel, guest_kernel or "
                   "guest_user");
  // perf writes the id length and sets BUILD_ID_SIZE; size_flag=0 writes
  // the old form (20 bytes, no length) that readers must still accept.
  if (A.flag("size_flag", true))
    B.Misc |= PERF_RECORD_MISC_BUILD_ID_SIZE;
  else if (B.Id.size() != 20)
    return A.error("size_flag=0 needs a 20-byte id");
  if (!A.finish())
    return false;
  Desc.Features.BuildIds.push_back(std::move(B));
  return true;
}

bool Builder::addCompress(ArgReader &A) {
  std::vector<std::string> &Words = A.words();
  if (Words.size() == 1 && Words[0] == "off") {
    Words.clear();
    if (OpenGroup < 0)
      return A.error("'compress off' without an open 'compress level=N'");
    Desc.Groups[OpenGroup].Closed = true;
    OpenGroup = -1;
    return A.finish();
  }
  if (OpenGroup >= 0)
    return A.error("compression is already on (line " +
                   std::to_string(Desc.Groups[OpenGroup].Line) +
                   "); end it with 'compress off' first");
  CompressDesc G;
  G.Line = A.line();
  uint64_t L = A.u64("level", 1);
  if (L < 1 || L > 22)
    return A.error("level: expected 1..22");
  G.Level = (int)L;
  G.RecordsPerChunk = (unsigned)A.uN("records_per_chunk", 32);
  G.SplitBytes = (unsigned)A.uN("split_bytes", 32);
  if (!A.finish())
    return false;
  Desc.Groups.push_back(G);
  OpenGroup = (int)Desc.Groups.size() - 1;
  return true;
}

bool Builder::addLabel(ArgReader &A) {
  for (Arg &Ar : A.args()) {
    uint64_t V = 0;
    std::string Why;
    Ar.Used = true;
    if (!parseNumber(Ar.Value, Labels, V, Why))
      return A.error(Ar.Key + ": " + Why);
    Labels[Ar.Key] = V;
  }
  return A.finish();
}

bool Builder::freezeAttrs(unsigned Line) {
  Frozen = true;
  if (Desc.Attrs.empty())
    return D.error(Line, "no 'attr' line before the first record");
  std::set<uint64_t> Seen;
  uint64_t Max = 0;
  for (const AttrDesc &At : Desc.Attrs)
    for (uint64_t Id : At.Ids) {
      if (!Seen.insert(Id).second)
        return D.error(At.Line,
                       "id " + std::to_string(Id) + " is used by two attrs");
      Max = std::max(Max, Id);
    }
  // perf matches EVENT_DESC names to events through ids, so every attr
  // gets at least one.
  for (AttrDesc &At : Desc.Attrs)
    if (At.Ids.empty())
      At.Ids.push_back(++Max);
  if (!Desc.Validate || Desc.Attrs.size() < 2)
    return true;
  const AttrDesc &First = Desc.Attrs[0];
  for (const AttrDesc &At : Desc.Attrs) {
    if (idPos(At.SampleType) < 0)
      return D.error(At.Line, "with several attrs every sample_type needs ID "
                              "or IDENTIFIER (perf: non matching "
                              "sample_type)");
    if (idPos(At.SampleType) != idPos(First.SampleType) ||
        isPos(At.SampleType) != isPos(First.SampleType))
      return D.error(At.Line, "ID sits at a different place than in attr 0 "
                              "(perf: non matching sample_type); use "
                              "IDENTIFIER or the same IP/TID/TIME/ADDR/CPU/"
                              "STREAM_ID bits");
    if (At.SampleIdAll != First.SampleIdAll)
      return D.error(At.Line, "sample_id_all differs from attr 0 (perf: non "
                              "matching sample_id_all)");
  }
  return true;
}

bool Builder::finish(unsigned LastLine) {
  if (Desc.Attrs.empty())
    return D.error(0, "no 'attr' line: a perf.data needs at least one event");
  if (!Frozen && !freezeAttrs(LastLine))
    return false;
  return !D.failed();
}

} // namespace t2p
} // namespace lbr2prof
