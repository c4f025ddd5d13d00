//===- Decode.cpp - attrs, features, samples, trailers --------------------===//
//
// Layouts follow include/uapi/linux/perf_event.h and tools/perf/util/header.c
// (perf 6.x). Each decoder documents the layout it reads right above it.
//
//===----------------------------------------------------------------------===//
#include "Decode.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace lbr2prof::perfabi;

namespace lbr2prof {
namespace decode {

static uint64_t rd64(ArrayRef<uint8_t> B, size_t Off) {
  return Off + 8 <= B.size() ? support::endian::read64le(B.data() + Off) : 0;
}
static uint32_t rd32(ArrayRef<uint8_t> B, size_t Off) {
  return Off + 4 <= B.size() ? support::endian::read32le(B.data() + Off) : 0;
}

// perf_event_attr, by ABI version:
//   0 u32 type | 4 u32 size | 8 u64 config | 16 u64 sample_period/freq
//  24 u64 sample_type | 32 u64 read_format | 40 u64 flag bits
//  48 u32 wakeup | 52 u32 bp_type | 56 u64 config1       (VER0 = 64 bytes)
//  64 u64 config2                                         (VER1 = 72)
//  72 u64 branch_sample_type                              (VER2 = 80)
//  80 u64 sample_regs_user | 88 u32 sample_stack_user | 92 s32 clockid
//  96 u64 sample_regs_intr                                (VER4 = 104) ...
// Fields beyond the stored size are zero, as the kernel treats them.
bool parseAttr(ArrayRef<uint8_t> Bytes, EventAttr &A, std::string &Why) {
  if (Bytes.size() < AttrSizeVer0) {
    Why = formatv("perf_event_attr needs at least {0} bytes, {1} present",
                  AttrSizeVer0, Bytes.size());
    return false;
  }
  A.Type = rd32(Bytes, 0);
  A.Size = rd32(Bytes, 4);
  if (A.Size && A.Size < Bytes.size())
    Bytes = Bytes.take_front(std::max<size_t>(A.Size, AttrSizeVer0));
  A.Config = rd64(Bytes, 8);
  A.SamplePeriodOrFreq = rd64(Bytes, 16);
  A.SampleType = rd64(Bytes, 24);
  A.ReadFormat = rd64(Bytes, 32);
  A.Flags = rd64(Bytes, 40);
  A.BranchSampleType = rd64(Bytes, 72);
  A.SampleRegsUser = rd64(Bytes, 80);
  A.SampleStackUser = rd32(Bytes, 88);
  A.SampleRegsIntr = rd64(Bytes, 96);
  if (A.SampleType >= PERF_SAMPLE_MAX) {
    Why = formatv("sample_type {0:x} has bits this reader does not know "
                  "(newer than perf 6.x?)",
                  A.SampleType);
    return false;
  }
  return true;
}

// build_id_event: { u32 type; u16 misc; u16 size; s32 pid;
//                   u8 build_id[24]; char filename[] }
// With PERF_RECORD_MISC_BUILD_ID_SIZE in misc, build_id[20] is the length.
bool parseBuildIdEvent(ArrayRef<uint8_t> Rec, BuildIdEntry &B,
                       std::string &Why) {
  if (Rec.size() < 8 + 4 + 24) {
    Why = formatv("build-id entry needs 36 bytes, {0} present", Rec.size());
    return false;
  }
  B.Misc = support::endian::read16le(Rec.data() + 4);
  B.Pid = int32_t(rd32(Rec, 8));
  const uint8_t *Id = Rec.data() + 12;
  size_t Len = 20;
  if (B.Misc & PERF_RECORD_MISC_BUILD_ID_SIZE)
    Len = std::min<size_t>(Id[20], 20);
  else
    // Old files pad ids shorter than 20 bytes with zeros.
    while (Len > 0 && Id[Len - 1] == 0)
      --Len;
  B.Id.assign(Id, Id + Len);
  const char *Name = reinterpret_cast<const char *>(Rec.data() + 36);
  B.Filename.assign(Name, strnlen(Name, Rec.size() - 36));
  return true;
}

static bool parseStringFeature(Cursor &C, std::string &Out, std::string &Why,
                               const char *What) {
  size_t Left = C.left();
  if (Left < 4) {
    // perf 3.8 on Arm wrote an empty cpudesc section when it could not
    // tell the CPU.
    Why = formatv("{0} feature: {1}-byte section, expected a u32 string "
                  "length and the string",
                  What, Left);
    return false;
  }
  uint32_t Len = support::endian::read32le(C.P);
  if (!C.perfString(Out)) {
    Why = formatv("{0} feature: string of {1} bytes runs past the section "
                  "({2} bytes remain)",
                  What, Len, Left - 4);
    return false;
  }
  return true;
}

bool parseFeature(unsigned Bit, ArrayRef<uint8_t> Data, PerfFileInfo &Info,
                  std::string &Why) {
  Info.Features.set(Bit);
  Cursor C(Data);
  switch (Bit) {
  case HEADER_HOSTNAME:
    return parseStringFeature(C, Info.Hostname, Why, "hostname");
  case HEADER_OSRELEASE:
    return parseStringFeature(C, Info.OsRelease, Why, "osrelease");
  case HEADER_VERSION:
    return parseStringFeature(C, Info.Version, Why, "version");
  case HEADER_ARCH:
    return parseStringFeature(C, Info.Arch, Why, "arch");
  case HEADER_CPUDESC:
    return parseStringFeature(C, Info.CpuDesc, Why, "cpudesc");
  case HEADER_CPUID:
    return parseStringFeature(C, Info.CpuId, Why, "cpuid");
  case HEADER_NRCPUS:
    // { u32 nr_cpus_avail; u32 nr_cpus_online; }
    if (!C.u32(Info.NrCpusAvail) || !C.u32(Info.NrCpusOnline)) {
      Why = "nrcpus feature needs 8 bytes";
      return false;
    }
    return true;
  case HEADER_TOTAL_MEM:
    if (!C.u64(Info.TotalMemKb)) {
      Why = "total_mem feature needs 8 bytes";
      return false;
    }
    return true;
  case HEADER_CMDLINE: {
    // { u32 nr; perf string[nr] }
    uint32_t N;
    if (!C.u32(N)) {
      Why = "cmdline feature needs a count";
      return false;
    }
    Info.Cmdline.clear();
    for (uint32_t I = 0; I < N; ++I) {
      std::string S;
      if (!parseStringFeature(C, S, Why, "cmdline"))
        return false;
      Info.Cmdline.push_back(std::move(S));
    }
    return true;
  }
  case HEADER_EVENT_DESC: {
    // { u32 nr_events; u32 attr_size;
    //   { attr[attr_size]; u32 nr_ids; perf string name; u64 ids[nr_ids] }[] }
    uint32_t N, Sz;
    if (!C.u32(N) || !C.u32(Sz)) {
      Why = "event_desc feature needs its counts";
      return false;
    }
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t NrIds;
      std::string Name;
      if (!C.skip(Sz) || !C.u32(NrIds) || !C.perfString(Name) ||
          NrIds > C.left() / 8) {
        Why = formatv("event_desc feature: event #{0} runs past the section",
                      I);
        return false;
      }
      C.skip(uint64_t(NrIds) * 8);
      if (I < Info.Attrs.size() && Info.Attrs[I].Name.empty())
        Info.Attrs[I].Name = Name;
    }
    return true;
  }
  case HEADER_BUILD_ID: {
    // A sequence of build_id_event records filling the section.
    while (C.left() >= 8) {
      uint16_t Size = support::endian::read16le(C.P + 6);
      if (Size < 8 || Size > C.left()) {
        Why = formatv("build_id feature: entry of {0} bytes, {1} remain", Size,
                      C.left());
        return false;
      }
      BuildIdEntry B;
      if (!parseBuildIdEvent(ArrayRef<uint8_t>(C.P, Size), B, Why))
        return false;
      Info.BuildIds.push_back(std::move(B));
      C.skip(Size);
    }
    return true;
  }
  case HEADER_COMPRESSED: {
    CompressionInfo &Z = Info.Compression;
    if (!C.u32(Z.Version) || !C.u32(Z.Type) || !C.u32(Z.Level) ||
        !C.u32(Z.Ratio) || !C.u32(Z.MmapLen)) {
      Why = "compressed feature needs 20 bytes";
      return false;
    }
    return true;
  }
  case HEADER_SAMPLE_TIME:
    if (!C.u64(Info.SampleTimeFirst) || !C.u64(Info.SampleTimeLast)) {
      Why = "sample_time feature needs 16 bytes";
      return false;
    }
    return true;
  default:
    return true;
  }
}

Layout makeLayout(const EventAttr &A) {
  Layout L;
  uint64_t T = A.SampleType;
  L.SampleType = T;
  L.ReadFormat = A.ReadFormat;
  L.HwIdx = A.BranchSampleType & PERF_SAMPLE_BRANCH_HW_INDEX;
  L.BranchCounters = A.BranchSampleType & PERF_SAMPLE_BRANCH_COUNTERS;
  L.RegsUserCount = llvm::popcount(A.SampleRegsUser);
  L.RegsIntrCount = llvm::popcount(A.SampleRegsIntr);
  // Sample: [IDENTIFIER] IP TID TIME ADDR ID ...
  if (T & PERF_SAMPLE_IDENTIFIER)
    L.IdPosInSample = 0;
  else if (T & PERF_SAMPLE_ID)
    L.IdPosInSample = !!(T & PERF_SAMPLE_IP) + !!(T & PERF_SAMPLE_TID) +
                      !!(T & PERF_SAMPLE_TIME) + !!(T & PERF_SAMPLE_ADDR);
  if (T & PERF_SAMPLE_TIME)
    L.TimePosInSample = !!(T & PERF_SAMPLE_IDENTIFIER) +
                        !!(T & PERF_SAMPLE_IP) + !!(T & PERF_SAMPLE_TID);
  if (A.sampleIdAll()) {
    if (T & PERF_SAMPLE_TIME)
      L.TimePosInTrailer = !!(T & PERF_SAMPLE_TID);
    // Trailer: TID TIME ID STREAM_ID CPU IDENTIFIER, each 8 bytes.
    unsigned N = 0;
    for (uint64_t B : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
                       PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
                       PERF_SAMPLE_IDENTIFIER})
      N += !!(T & B);
    L.TrailerSize = N * 8;
    if (T & PERF_SAMPLE_IDENTIFIER)
      L.IdPosFromEnd = 1;
    else if (T & PERF_SAMPLE_ID)
      L.IdPosFromEnd =
          1 + !!(T & PERF_SAMPLE_CPU) + !!(T & PERF_SAMPLE_STREAM_ID);
  }
  return L;
}

void decodeTrailer(ArrayRef<uint8_t> Trailer, const Layout &L, SampleId &Id) {
  Cursor C(Trailer);
  uint64_t T = L.SampleType, V;
  Id.Has = T & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU);
  if ((T & PERF_SAMPLE_TID) && C.u64(V)) {
    Id.Pid = uint32_t(V);
    Id.Tid = uint32_t(V >> 32);
  }
  if (T & PERF_SAMPLE_TIME)
    C.u64(Id.Time);
  if (T & PERF_SAMPLE_ID)
    C.u64(Id.Id);
  if (T & PERF_SAMPLE_STREAM_ID)
    C.u64(Id.StreamId);
  if ((T & PERF_SAMPLE_CPU) && C.u64(V))
    Id.Cpu = uint32_t(V);
  if ((T & PERF_SAMPLE_IDENTIFIER) && C.u64(V)) {
    Id.Id = V;
    Id.Has |= PERF_SAMPLE_ID;
  }
}

static bool fail(std::string &Why, const char *Field, size_t Left,
                 uint64_t Need = 8) {
  Why = formatv("{0} needs {1} bytes, {2} remain in the sample", Field, Need,
                Left);
  return false;
}

/// IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU and PERIOD: the
/// fixed words at the front of a sample, in this order, each present iff
/// its bit of T is set.
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool
decodeSampleHead(Cursor &C, uint64_t T, Sample &S, std::string &Why) {
  uint64_t V;
  S.Ident.Has = T & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU);
  if (T & PERF_SAMPLE_IDENTIFIER) {
    if (!C.u64(S.Ident.Id))
      return fail(Why, "IDENTIFIER", C.left());
    S.Ident.Has |= PERF_SAMPLE_ID;
  }
  if ((T & PERF_SAMPLE_IP) && !C.u64(S.Ip))
    return fail(Why, "IP", C.left());
  if (T & PERF_SAMPLE_TID) {
    if (!C.u64(V))
      return fail(Why, "TID", C.left());
    S.Ident.Pid = uint32_t(V);
    S.Ident.Tid = uint32_t(V >> 32);
  }
  if ((T & PERF_SAMPLE_TIME) && !C.u64(S.Ident.Time))
    return fail(Why, "TIME", C.left());
  if ((T & PERF_SAMPLE_ADDR) && !C.u64(S.Addr))
    return fail(Why, "ADDR", C.left());
  if ((T & PERF_SAMPLE_ID) && !C.u64(S.Ident.Id))
    return fail(Why, "ID", C.left());
  if ((T & PERF_SAMPLE_STREAM_ID) && !C.u64(S.Ident.StreamId))
    return fail(Why, "STREAM_ID", C.left());
  if (T & PERF_SAMPLE_CPU) {
    if (!C.u64(V))
      return fail(Why, "CPU", C.left());
    S.Ident.Cpu = uint32_t(V);
  }
  if ((T & PERF_SAMPLE_PERIOD) && !C.u64(S.Period))
    return fail(Why, "PERIOD", C.left());
  return true;
}

/// READ, laid out by read_format RF: without PERF_FORMAT_GROUP { value;
/// [time_enabled]; [time_running]; [id]; [lost] }, with it { nr;
/// [time_enabled]; [time_running]; { value; [id]; [lost] }[nr] }. The view
/// S.Read keeps nr.
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool
decodeRead(Cursor &C, uint64_t RF, Sample &S, std::string &Why) {
  unsigned PerValue = 1 + !!(RF & PERF_FORMAT_ID) + !!(RF & PERF_FORMAT_LOST);
  unsigned Times = !!(RF & PERF_FORMAT_TOTAL_TIME_ENABLED) +
                   !!(RF & PERF_FORMAT_TOTAL_TIME_RUNNING);
  uint64_t Words;
  if (RF & PERF_FORMAT_GROUP) {
    uint64_t Nr;
    if (!C.u64(Nr))
      return fail(Why, "READ group count", C.left());
    if (Nr > C.left() / 8 / PerValue) {
      Why = formatv("READ group claims {0} values, {1} bytes remain", Nr,
                    C.left());
      return false;
    }
    Words = Times + Nr * PerValue;
    C.P -= 8, Words += 1; // keep nr in the view
  } else {
    Words = Times + PerValue;
  }
  if (!C.u64s(Words, S.Read))
    return fail(Why, "READ", C.left(), Words * 8);
  return true;
}

/// CALLCHAIN: u64 nr, u64 ips[nr].
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool decodeCallchain(Cursor &C, Sample &S,
                                                         std::string &Why) {
  uint64_t Nr;
  if (!C.u64(Nr))
    return fail(Why, "CALLCHAIN count", C.left());
  if (!C.u64s(Nr, S.Callchain)) {
    Why = formatv("call chain claims {0} entries, {1} bytes remain", Nr,
                  C.left());
    return false;
  }
  return true;
}

/// RAW: u32 size, u8 data[size].
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool decodeRaw(Cursor &C, Sample &S,
                                                   std::string &Why) {
  uint32_t Size;
  if (!C.u32(Size))
    return fail(Why, "RAW size", C.left(), 4);
  if (!C.bytes(Size, S.Raw)) {
    Why = formatv("RAW data claims {0} bytes, {1} remain", Size, C.left());
    return false;
  }
  return true;
}

/// BRANCH_STACK: u64 nr, [u64 hw_idx], perf_branch_entry[nr],
/// [u64 counters[nr]]. The entries stay in the record (S.Branches is a
/// view): this runs for every LBR sample.
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool
decodeBranchStack(Cursor &C, const Layout &L, Sample &S, std::string &Why) {
  uint64_t Nr;
  if (!C.u64(Nr))
    return fail(Why, "branch stack count", C.left());
  if (L.HwIdx) {
    if (!C.u64(S.HwIdx))
      return fail(Why, "branch stack hw_idx", C.left());
    S.HasHwIdx = true;
  }
  if (Nr > C.left() / sizeof(BranchEntry)) {
    Why = formatv("branch stack claims {0} entries, {1} bytes remain", Nr,
                  C.left());
    return false;
  }
  S.Branches = ArrayRef<BranchEntry>(reinterpret_cast<const BranchEntry *>(C.P),
                                     size_t(Nr));
  C.P += Nr * sizeof(BranchEntry);
  if (L.BranchCounters && !C.u64s(Nr, S.BranchCounters))
    return fail(Why, "branch counters", C.left(), Nr * 8);
  return true;
}

/// REGS_USER or REGS_INTR: u64 abi, then Count registers (the weight of
/// the attr's mask) unless abi is 0 (no registers). AbiField and Field
/// name the parts in errors.
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool
decodeRegs(Cursor &C, const char *AbiField, const char *Field, unsigned Count,
           uint64_t &Abi, ArrayRef<ulittle64> &Regs, std::string &Why) {
  if (!C.u64(Abi))
    return fail(Why, AbiField, C.left());
  if (Abi && !C.u64s(Count, Regs))
    return fail(Why, Field, C.left(), Count * 8ULL);
  return true;
}

/// STACK_USER: u64 size, u8 data[size], then u64 dyn_size if size is not 0.
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool decodeStackUser(Cursor &C, Sample &S,
                                                         std::string &Why) {
  uint64_t Size;
  if (!C.u64(Size))
    return fail(Why, "STACK_USER size", C.left());
  if (!Size)
    return true;
  if (!C.bytes(Size, S.StackUser)) {
    Why = formatv("STACK_USER claims {0} bytes, {1} remain", Size, C.left());
    return false;
  }
  if (!C.u64(S.StackUserDynSize))
    return fail(Why, "STACK_USER dyn_size", C.left());
  return true;
}

/// WEIGHT (or WEIGHT_STRUCT), DATA_SRC and TRANSACTION: one u64 each.
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool
decodeWeightFields(Cursor &C, uint64_t T, Sample &S, std::string &Why) {
  if ((T & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) &&
      !C.u64(S.Weight))
    return fail(Why, "WEIGHT", C.left());
  if ((T & PERF_SAMPLE_DATA_SRC) && !C.u64(S.DataSrc))
    return fail(Why, "DATA_SRC", C.left());
  if ((T & PERF_SAMPLE_TRANSACTION) && !C.u64(S.Transaction))
    return fail(Why, "TRANSACTION", C.left());
  return true;
}

/// PHYS_ADDR, CGROUP, DATA_PAGE_SIZE and CODE_PAGE_SIZE: one u64 each.
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool
decodeAddressFields(Cursor &C, uint64_t T, Sample &S, std::string &Why) {
  if ((T & PERF_SAMPLE_PHYS_ADDR) && !C.u64(S.PhysAddr))
    return fail(Why, "PHYS_ADDR", C.left());
  if ((T & PERF_SAMPLE_CGROUP) && !C.u64(S.Cgroup))
    return fail(Why, "CGROUP", C.left());
  if ((T & PERF_SAMPLE_DATA_PAGE_SIZE) && !C.u64(S.DataPageSize))
    return fail(Why, "DATA_PAGE_SIZE", C.left());
  if ((T & PERF_SAMPLE_CODE_PAGE_SIZE) && !C.u64(S.CodePageSize))
    return fail(Why, "CODE_PAGE_SIZE", C.left());
  return true;
}

/// AUX: u64 size, u8 data[size].
static LLVM_ATTRIBUTE_ALWAYS_INLINE bool decodeAux(Cursor &C, Sample &S,
                                                   std::string &Why) {
  uint64_t Size;
  if (!C.u64(Size))
    return fail(Why, "AUX size", C.left());
  if (!C.bytes(Size, S.Aux)) {
    Why = formatv("AUX claims {0} bytes, {1} remain", Size, C.left());
    return false;
  }
  return true;
}

// PERF_RECORD_SAMPLE body, each part present iff its sample_type bit is set:
//   IDENTIFIER u64 | IP u64 | TID u32 pid, u32 tid | TIME u64 | ADDR u64
//   ID u64 | STREAM_ID u64 | CPU u32 cpu, u32 res | PERIOD u64
//   READ (see read_format) | CALLCHAIN u64 nr, u64 ips[nr]
//   RAW u32 size, u8 data[size] | BRANCH_STACK u64 nr, [u64 hw_idx],
//   perf_branch_entry[nr], [u64 counters[nr]] | REGS_USER u64 abi,
//   u64 regs[weight(mask)] if abi | STACK_USER u64 size, u8 data[size],
//   u64 dyn_size if size | WEIGHT or WEIGHT_STRUCT u64 | DATA_SRC u64
//   TRANSACTION u64 | REGS_INTR like REGS_USER | PHYS_ADDR u64 | CGROUP u64
//   DATA_PAGE_SIZE u64 | CODE_PAGE_SIZE u64 | AUX u64 size, u8 data[size]
// Runs once per sample: the helpers above are always inlined, so this is
// one straight-line body, as if written in one piece.
bool decodeSample(ArrayRef<uint8_t> Body, const Layout &L, Sample &S,
                  std::string &Why) {
  Cursor C(Body);
  const uint64_t T = L.SampleType;
  if (!decodeSampleHead(C, T, S, Why))
    return false;
  if ((T & PERF_SAMPLE_READ) && !decodeRead(C, L.ReadFormat, S, Why))
    return false;
  if ((T & PERF_SAMPLE_CALLCHAIN) && !decodeCallchain(C, S, Why))
    return false;
  if ((T & PERF_SAMPLE_RAW) && !decodeRaw(C, S, Why))
    return false;
  if ((T & PERF_SAMPLE_BRANCH_STACK) && !decodeBranchStack(C, L, S, Why))
    return false;
  if ((T & PERF_SAMPLE_REGS_USER) &&
      !decodeRegs(C, "REGS_USER abi", "REGS_USER", L.RegsUserCount,
                  S.RegsUserAbi, S.RegsUser, Why))
    return false;
  if ((T & PERF_SAMPLE_STACK_USER) && !decodeStackUser(C, S, Why))
    return false;
  if (!decodeWeightFields(C, T, S, Why))
    return false;
  if ((T & PERF_SAMPLE_REGS_INTR) &&
      !decodeRegs(C, "REGS_INTR abi", "REGS_INTR", L.RegsIntrCount,
                  S.RegsIntrAbi, S.RegsIntr, Why))
    return false;
  if (!decodeAddressFields(C, T, S, Why))
    return false;
  if ((T & PERF_SAMPLE_AUX) && !decodeAux(C, S, Why))
    return false;
  return true;
}

} // namespace decode

SampleDecoder::SampleDecoder(const EventAttr &A) {
  decode::Layout L = decode::makeLayout(A);
  SampleType = L.SampleType;
  ReadFormat = L.ReadFormat;
  RegsUser = L.RegsUserCount;
  RegsIntr = L.RegsIntrCount;
  HwIdx = L.HwIdx;
  Counters = L.BranchCounters;
}

bool SampleDecoder::decode(ArrayRef<uint8_t> Record, unsigned AttrIndex,
                           Sample &S, std::string &Why) const {
  decode::Layout L;
  L.SampleType = SampleType;
  L.ReadFormat = ReadFormat;
  L.RegsUserCount = RegsUser;
  L.RegsIntrCount = RegsIntr;
  L.HwIdx = HwIdx;
  L.BranchCounters = Counters;
  if (Record.size() < 8) {
    Why = "record shorter than its header";
    return false;
  }
  S.AttrIndex = AttrIndex;
  S.Misc = support::endian::read16le(Record.data() + 4);
  return decode::decodeSample(Record.drop_front(8), L, S, Why);
}

} // namespace lbr2prof
