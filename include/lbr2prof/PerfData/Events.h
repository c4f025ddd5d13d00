//===- Events.h - decoded perf.data records ---------------------*- C++ -*-===//
//
// The values the perf.data reader hands to its client. They are views: the
// ArrayRefs and StringRefs point into the reader's buffer and stay valid only
// during the callback that receives them, so decoding a sample allocates
// nothing. Branch entries are read in place through an unaligned
// little-endian overlay of the kernel's struct perf_branch_entry.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PERFDATA_EVENTS_H
#define LBR2PROF_PERFDATA_EVENTS_H

#include "lbr2prof/PerfData/PerfABI.h"
#include "lbr2prof/Support/DefaultInit.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"
#include <cstdint>
#include <memory>
#include <vector>

namespace lbr2prof {

using ulittle64 = llvm::support::ulittle64_t;

/// One LBR/BRBE entry exactly as stored in perf.data (24 bytes, any
/// alignment). From and To are runtime (process) addresses.
struct BranchEntry {
  ulittle64 From;
  ulittle64 To;
  ulittle64 Flags;

  uint64_t from() const { return From; }
  uint64_t to() const { return To; }
  bool mispred() const { return bit(perfabi::branchbits::MispredShift); }
  bool predicted() const { return bit(perfabi::branchbits::PredictedShift); }
  bool inTx() const { return bit(perfabi::branchbits::InTxShift); }
  bool abort() const { return bit(perfabi::branchbits::AbortShift); }
  /// Cycles since the previous entry, as the hardware counted them (0 when
  /// the hardware does not record cycles, e.g. AMD).
  unsigned cycles() const {
    return (uint64_t(Flags) >> perfabi::branchbits::CyclesShift) & 0xffff;
  }
  /// perfabi::BranchType; 0 unless recorded with PERF_SAMPLE_BRANCH_TYPE_SAVE.
  unsigned type() const {
    return (uint64_t(Flags) >> perfabi::branchbits::TypeShift) & 0xf;
  }
  /// 0 NA, 1 wrong path, 2 non-speculative correct path, 3 speculative
  /// correct path.
  unsigned spec() const {
    return (uint64_t(Flags) >> perfabi::branchbits::SpecShift) & 0x3;
  }
  /// Extended type, meaningful when type() == PERF_BR_EXTEND_ABI.
  unsigned newType() const {
    return (uint64_t(Flags) >> perfabi::branchbits::NewTypeShift) & 0xf;
  }
  /// 0 unknown, 1 user, 2 kernel, 3 hypervisor.
  unsigned priv() const {
    return (uint64_t(Flags) >> perfabi::branchbits::PrivShift) & 0x7;
  }

private:
  bool bit(unsigned S) const { return (uint64_t(Flags) >> S) & 1; }
};
static_assert(sizeof(BranchEntry) == 24, "perf_branch_entry is 24 bytes");
static_assert(alignof(BranchEntry) == 1, "read in place at any alignment");

/// The sample_id trailer of non-sample records (when sample_id_all is set),
/// and the same identity fields of samples. Fields absent from the layout
/// are zero; Has says which were present (PERF_SAMPLE_* bits).
struct SampleId {
  uint64_t Has = 0;
  uint32_t Pid = 0, Tid = 0;
  uint64_t Time = 0;
  uint64_t Id = 0;
  uint64_t StreamId = 0;
  uint32_t Cpu = 0;
};

/// A PERF_RECORD_SAMPLE, decoded according to its event's sample_type.
struct Sample {
  /// Index of the event (attr) this sample belongs to.
  unsigned AttrIndex = 0;
  /// perf_event_header.misc (cpumode in bits 0-2).
  uint16_t Misc = 0;
  SampleId Ident;
  /// Runtime address of the sampled instruction.
  uint64_t Ip = 0;
  uint64_t Addr = 0;
  uint64_t Period = 0;
  /// PERF_SAMPLE_READ values, raw u64s as laid out by read_format.
  llvm::ArrayRef<ulittle64> Read;
  /// Call chain, innermost first, including PERF_CONTEXT_* markers.
  llvm::ArrayRef<ulittle64> Callchain;
  llvm::ArrayRef<uint8_t> Raw;
  /// Branch stack, newest first (Branches[0] is the most recent branch).
  llvm::ArrayRef<BranchEntry> Branches;
  /// Per-branch counters (PERF_SAMPLE_BRANCH_COUNTERS), parallel to Branches.
  llvm::ArrayRef<ulittle64> BranchCounters;
  bool HasHwIdx = false;
  /// Index of the newest entry in the hardware's ring (with BRANCH_HW_INDEX).
  uint64_t HwIdx = 0;
  uint64_t RegsUserAbi = 0;
  llvm::ArrayRef<ulittle64> RegsUser;
  llvm::ArrayRef<uint8_t> StackUser;
  uint64_t StackUserDynSize = 0;
  uint64_t Weight = 0;
  uint64_t DataSrc = 0;
  uint64_t Transaction = 0;
  uint64_t RegsIntrAbi = 0;
  llvm::ArrayRef<ulittle64> RegsIntr;
  uint64_t PhysAddr = 0;
  uint64_t Cgroup = 0;
  uint64_t DataPageSize = 0;
  uint64_t CodePageSize = 0;
  llvm::ArrayRef<uint8_t> Aux;

  unsigned cpumode() const {
    return Misc & perfabi::PERF_RECORD_MISC_CPUMODE_MASK;
  }
};

/// PERF_RECORD_MMAP or PERF_RECORD_MMAP2: Len bytes of the file at page
/// offset PgOff were mapped at runtime address Addr in process Pid.
struct MmapEvent {
  bool IsMmap2 = false;
  uint16_t Misc = 0;
  uint32_t Pid = 0, Tid = 0;
  uint64_t Addr = 0, Len = 0, PgOff = 0;
  uint32_t Maj = 0, Min = 0;
  uint64_t Ino = 0, InoGeneration = 0;
  /// Set when the MMAP2 carries a build-id instead of device/inode.
  llvm::ArrayRef<uint8_t> BuildId;
  uint32_t Prot = 0, Flags = 0;
  llvm::StringRef Filename;
  SampleId Ident;

  bool isExecutable() const {
    return IsMmap2 ? (Prot & 4) != 0
                   : !(Misc & perfabi::PERF_RECORD_MISC_MMAP_DATA);
  }
  bool hasBuildId() const {
    return Misc & perfabi::PERF_RECORD_MISC_MMAP_BUILD_ID;
  }
};

/// PERF_RECORD_COMM: thread Tid of process Pid is now called Comm.
struct CommEvent {
  uint16_t Misc = 0;
  uint32_t Pid = 0, Tid = 0;
  llvm::StringRef Comm;
  SampleId Ident;
  /// The name changed because of exec(): earlier mappings are gone.
  bool isExec() const { return Misc & perfabi::PERF_RECORD_MISC_COMM_EXEC; }
};

/// PERF_RECORD_FORK or PERF_RECORD_EXIT.
struct TaskEvent {
  bool IsFork = false;
  uint32_t Pid = 0, PPid = 0, Tid = 0, PTid = 0;
  uint64_t Time = 0;
  SampleId Ident;
};

/// PERF_RECORD_LOST (Id set) or PERF_RECORD_LOST_SAMPLES (Id 0).
struct LostEvent {
  uint64_t Id = 0;
  uint64_t Lost = 0;
  SampleId Ident;
};

/// The bytes of one of the reader's read windows. Left unzeroed when a
/// window is made or grown: the reader writes every byte it hands out, and
/// zeroing fresh 1 MB windows was 3% of the CPU of bench/pgo's gawk
/// contexts on lines.
using WindowBytes = DefaultInitVector<uint8_t>;

/// Every record, before its decoded form: for counting and for dumps.
struct RecordInfo {
  uint32_t Type = 0;
  uint16_t Misc = 0;
  uint16_t Size = 0;
  /// Byte offset of the record in the file; for records decompressed from
  /// a COMPRESSED chunk, the offset of that chunk.
  uint64_t FileOffset = 0;
  /// 0-based index among all records (compressed ones included).
  uint64_t Index = 0;
  /// True for records that came out of a COMPRESSED chunk.
  bool FromCompressed = false;
  /// The whole record, header included.
  llvm::ArrayRef<uint8_t> Bytes;
  /// The reader's buffer holding Bytes, when it can be shared: a handler
  /// that copies this pointer keeps Bytes valid after the callback (the
  /// reader then moves on to a new buffer). Null when Bytes lives in a
  /// buffer that is reused (decompressed or time-ordered records).
  const std::shared_ptr<WindowBytes> *Window = nullptr;
};

/// Name of a record type ("SAMPLE", "MMAP2", ...), or "" if unknown.
llvm::StringRef recordTypeName(uint32_t Type);

/// perf's name of a branch type ("COND", "CALL", ...), "" for UNKNOWN.
llvm::StringRef branchTypeName(unsigned Type);

} // namespace lbr2prof

#endif
