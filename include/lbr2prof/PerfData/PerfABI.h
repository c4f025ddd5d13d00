//===- PerfABI.h - constants of the perf_event / perf.data ABI -*- C++ -*-===//
//
// Numeric facts of the kernel's perf_event ABI (include/uapi/linux/
// perf_event.h) and of perf's file format (tools/perf/util/header.h,
// tools/lib/perf/include/perf/event.h) that both our reader and our
// test-input writers need. Only values live here: no parsing, no layout
// assumptions beyond what the ABI fixes.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PERFDATA_PERFABI_H
#define LBR2PROF_PERFDATA_PERFABI_H

#include <cstdint>

namespace lbr2prof {
namespace perfabi {

/// "PERFILE2" read as a little-endian u64.
constexpr uint64_t Magic2 = 0x32454c4946524550ULL;
/// The same magic written by a big-endian machine.
constexpr uint64_t Magic2Swapped = 0x50455246494c4532ULL;

/// Size of the file-mode header (struct perf_file_header) in bytes.
constexpr uint64_t FileHeaderSize = 104;
/// Size of the pipe-mode header (struct perf_pipe_file_header) in bytes.
constexpr uint64_t PipeHeaderSize = 16;

/// perf_event_header.type values written by the kernel.
enum RecordType : uint32_t {
  PERF_RECORD_MMAP = 1,
  PERF_RECORD_LOST = 2,
  PERF_RECORD_COMM = 3,
  PERF_RECORD_EXIT = 4,
  PERF_RECORD_THROTTLE = 5,
  PERF_RECORD_UNTHROTTLE = 6,
  PERF_RECORD_FORK = 7,
  PERF_RECORD_READ = 8,
  PERF_RECORD_SAMPLE = 9,
  PERF_RECORD_MMAP2 = 10,
  PERF_RECORD_AUX = 11,
  PERF_RECORD_ITRACE_START = 12,
  PERF_RECORD_LOST_SAMPLES = 13,
  PERF_RECORD_SWITCH = 14,
  PERF_RECORD_SWITCH_CPU_WIDE = 15,
  PERF_RECORD_NAMESPACES = 16,
  PERF_RECORD_KSYMBOL = 17,
  PERF_RECORD_BPF_EVENT = 18,
  PERF_RECORD_CGROUP = 19,
  PERF_RECORD_TEXT_POKE = 20,
  PERF_RECORD_AUX_OUTPUT_HW_ID = 21,
  PERF_RECORD_KERNEL_MAX,
  // Records perf itself synthesizes (user types).
  PERF_RECORD_HEADER_ATTR = 64,
  PERF_RECORD_HEADER_EVENT_TYPE = 65,
  PERF_RECORD_HEADER_TRACING_DATA = 66,
  PERF_RECORD_HEADER_BUILD_ID = 67,
  PERF_RECORD_FINISHED_ROUND = 68,
  PERF_RECORD_ID_INDEX = 69,
  PERF_RECORD_AUXTRACE_INFO = 70,
  PERF_RECORD_AUXTRACE = 71,
  PERF_RECORD_AUXTRACE_ERROR = 72,
  PERF_RECORD_THREAD_MAP = 73,
  PERF_RECORD_CPU_MAP = 74,
  PERF_RECORD_STAT_CONFIG = 75,
  PERF_RECORD_STAT = 76,
  PERF_RECORD_STAT_ROUND = 77,
  PERF_RECORD_EVENT_UPDATE = 78,
  PERF_RECORD_TIME_CONV = 79,
  PERF_RECORD_HEADER_FEATURE = 80,
  PERF_RECORD_COMPRESSED = 81,
  PERF_RECORD_FINISHED_INIT = 82,
  PERF_RECORD_COMPRESSED2 = 83,
  PERF_RECORD_BPF_METADATA = 84,
};

/// perf_event_header.misc bits.
enum : uint16_t {
  PERF_RECORD_MISC_CPUMODE_MASK = 7,
  PERF_RECORD_MISC_KERNEL = 1,
  PERF_RECORD_MISC_USER = 2,
  PERF_RECORD_MISC_HYPERVISOR = 3,
  PERF_RECORD_MISC_GUEST_KERNEL = 4,
  PERF_RECORD_MISC_GUEST_USER = 5,
  PERF_RECORD_MISC_MMAP_DATA = 1 << 13,
  PERF_RECORD_MISC_COMM_EXEC = 1 << 13,
  PERF_RECORD_MISC_MMAP_BUILD_ID = 1 << 14,
  PERF_RECORD_MISC_BUILD_ID_SIZE = 1 << 15,
};

/// perf_event_attr.sample_type bits, in the order the SAMPLE body lists
/// them (IDENTIFIER comes first in the body despite its bit number).
enum SampleType : uint64_t {
  PERF_SAMPLE_IP = 1ULL << 0,
  PERF_SAMPLE_TID = 1ULL << 1,
  PERF_SAMPLE_TIME = 1ULL << 2,
  PERF_SAMPLE_ADDR = 1ULL << 3,
  PERF_SAMPLE_READ = 1ULL << 4,
  PERF_SAMPLE_CALLCHAIN = 1ULL << 5,
  PERF_SAMPLE_ID = 1ULL << 6,
  PERF_SAMPLE_CPU = 1ULL << 7,
  PERF_SAMPLE_PERIOD = 1ULL << 8,
  PERF_SAMPLE_STREAM_ID = 1ULL << 9,
  PERF_SAMPLE_RAW = 1ULL << 10,
  PERF_SAMPLE_BRANCH_STACK = 1ULL << 11,
  PERF_SAMPLE_REGS_USER = 1ULL << 12,
  PERF_SAMPLE_STACK_USER = 1ULL << 13,
  PERF_SAMPLE_WEIGHT = 1ULL << 14,
  PERF_SAMPLE_DATA_SRC = 1ULL << 15,
  PERF_SAMPLE_IDENTIFIER = 1ULL << 16,
  PERF_SAMPLE_TRANSACTION = 1ULL << 17,
  PERF_SAMPLE_REGS_INTR = 1ULL << 18,
  PERF_SAMPLE_PHYS_ADDR = 1ULL << 19,
  PERF_SAMPLE_AUX = 1ULL << 20,
  PERF_SAMPLE_CGROUP = 1ULL << 21,
  PERF_SAMPLE_DATA_PAGE_SIZE = 1ULL << 22,
  PERF_SAMPLE_CODE_PAGE_SIZE = 1ULL << 23,
  PERF_SAMPLE_WEIGHT_STRUCT = 1ULL << 24,
  PERF_SAMPLE_MAX = 1ULL << 25,
};

/// perf_event_attr.read_format bits.
enum ReadFormat : uint64_t {
  PERF_FORMAT_TOTAL_TIME_ENABLED = 1ULL << 0,
  PERF_FORMAT_TOTAL_TIME_RUNNING = 1ULL << 1,
  PERF_FORMAT_ID = 1ULL << 2,
  PERF_FORMAT_GROUP = 1ULL << 3,
  PERF_FORMAT_LOST = 1ULL << 4,
};

/// perf_event_attr.branch_sample_type bits.
enum BranchSampleType : uint64_t {
  PERF_SAMPLE_BRANCH_USER = 1ULL << 0,
  PERF_SAMPLE_BRANCH_KERNEL = 1ULL << 1,
  PERF_SAMPLE_BRANCH_HV = 1ULL << 2,
  PERF_SAMPLE_BRANCH_ANY = 1ULL << 3,
  PERF_SAMPLE_BRANCH_ANY_CALL = 1ULL << 4,
  PERF_SAMPLE_BRANCH_ANY_RETURN = 1ULL << 5,
  PERF_SAMPLE_BRANCH_IND_CALL = 1ULL << 6,
  PERF_SAMPLE_BRANCH_ABORT_TX = 1ULL << 7,
  PERF_SAMPLE_BRANCH_IN_TX = 1ULL << 8,
  PERF_SAMPLE_BRANCH_NO_TX = 1ULL << 9,
  PERF_SAMPLE_BRANCH_COND = 1ULL << 10,
  PERF_SAMPLE_BRANCH_CALL_STACK = 1ULL << 11,
  PERF_SAMPLE_BRANCH_IND_JUMP = 1ULL << 12,
  PERF_SAMPLE_BRANCH_CALL = 1ULL << 13,
  PERF_SAMPLE_BRANCH_NO_FLAGS = 1ULL << 14,
  PERF_SAMPLE_BRANCH_NO_CYCLES = 1ULL << 15,
  PERF_SAMPLE_BRANCH_TYPE_SAVE = 1ULL << 16,
  PERF_SAMPLE_BRANCH_HW_INDEX = 1ULL << 17,
  PERF_SAMPLE_BRANCH_PRIV_SAVE = 1ULL << 18,
  PERF_SAMPLE_BRANCH_COUNTERS = 1ULL << 19,
};

/// perf_branch_entry.type values (4 bits).
enum BranchType : uint8_t {
  PERF_BR_UNKNOWN = 0,
  PERF_BR_COND = 1,
  PERF_BR_UNCOND = 2,
  PERF_BR_IND = 3,
  PERF_BR_CALL = 4,
  PERF_BR_IND_CALL = 5,
  PERF_BR_RET = 6,
  PERF_BR_SYSCALL = 7,
  PERF_BR_SYSRET = 8,
  PERF_BR_COND_CALL = 9,
  PERF_BR_COND_RET = 10,
  PERF_BR_ERET = 11,
  PERF_BR_IRQ = 12,
  PERF_BR_SERROR = 13,
  PERF_BR_NO_TX = 14,
  PERF_BR_EXTEND_ABI = 15,
};

/// Bit positions inside the third u64 of perf_branch_entry (little-endian
/// bitfield order: mispred is bit 0).
namespace branchbits {
constexpr unsigned MispredShift = 0;
constexpr unsigned PredictedShift = 1;
constexpr unsigned InTxShift = 2;
constexpr unsigned AbortShift = 3;
constexpr unsigned CyclesShift = 4;  // 16 bits
constexpr unsigned TypeShift = 20;   // 4 bits
constexpr unsigned SpecShift = 24;   // 2 bits
constexpr unsigned NewTypeShift = 26; // 4 bits
constexpr unsigned PrivShift = 30;   // 3 bits
} // namespace branchbits

/// perf_callchain_context markers inside PERF_SAMPLE_CALLCHAIN.
enum : uint64_t {
  PERF_CONTEXT_HV = (uint64_t)-32,
  PERF_CONTEXT_KERNEL = (uint64_t)-128,
  PERF_CONTEXT_USER = (uint64_t)-512,
  PERF_CONTEXT_GUEST = (uint64_t)-2048,
  PERF_CONTEXT_GUEST_KERNEL = (uint64_t)-2176,
  PERF_CONTEXT_GUEST_USER = (uint64_t)-2560,
  PERF_CONTEXT_MAX = (uint64_t)-4095,
};

/// Feature bits of the file header's adds_features bitmap (header.h).
enum Feature : unsigned {
  HEADER_RESERVED = 0,
  HEADER_TRACING_DATA = 1,
  HEADER_BUILD_ID = 2,
  HEADER_HOSTNAME = 3,
  HEADER_OSRELEASE = 4,
  HEADER_VERSION = 5,
  HEADER_ARCH = 6,
  HEADER_NRCPUS = 7,
  HEADER_CPUDESC = 8,
  HEADER_CPUID = 9,
  HEADER_TOTAL_MEM = 10,
  HEADER_CMDLINE = 11,
  HEADER_EVENT_DESC = 12,
  HEADER_CPU_TOPOLOGY = 13,
  HEADER_NUMA_TOPOLOGY = 14,
  HEADER_BRANCH_STACK = 15,
  HEADER_PMU_MAPPINGS = 16,
  HEADER_GROUP_DESC = 17,
  HEADER_AUXTRACE = 18,
  HEADER_STAT = 19,
  HEADER_CACHE = 20,
  HEADER_SAMPLE_TIME = 21,
  HEADER_MEM_TOPOLOGY = 22,
  HEADER_CLOCKID = 23,
  HEADER_DIR_FORMAT = 24,
  HEADER_BPF_PROG_INFO = 25,
  HEADER_BPF_BTF = 26,
  HEADER_COMPRESSED = 27,
  HEADER_CPU_PMU_CAPS = 28,
  HEADER_CLOCK_DATA = 29,
  HEADER_HYBRID_TOPOLOGY = 30,
  HEADER_PMU_CAPS = 31,
  HEADER_LAST_FEATURE,
  HEADER_FEAT_BITS = 256,
};

/// perf_event_attr sizes by ABI version (PERF_ATTR_SIZE_VER0..8).
constexpr uint32_t AttrSizeVer0 = 64;
constexpr uint32_t AttrSizeVer8 = 136;

/// Bit positions of the flag word at offset 40 of perf_event_attr.
namespace attrbits {
constexpr unsigned Disabled = 0;
constexpr unsigned Inherit = 1;
constexpr unsigned ExcludeUser = 4;
constexpr unsigned ExcludeKernel = 5;
constexpr unsigned ExcludeHv = 6;
constexpr unsigned Mmap = 8;
constexpr unsigned Comm = 9;
constexpr unsigned Freq = 10;
constexpr unsigned Task = 13;
constexpr unsigned SampleIdAll = 18;
constexpr unsigned ExcludeGuest = 20;
constexpr unsigned Mmap2 = 23;
constexpr unsigned CommExec = 24;
// Added for text2perfdata (it sets every flag by name).
constexpr unsigned Pinned = 2;
constexpr unsigned Exclusive = 3;
constexpr unsigned ExcludeIdle = 7;
constexpr unsigned InheritStat = 11;
constexpr unsigned EnableOnExec = 12;
constexpr unsigned Watermark = 14;
constexpr unsigned PreciseIp = 15; // 2 bits
constexpr unsigned MmapData = 17;
constexpr unsigned ExcludeHost = 19;
constexpr unsigned ExcludeCallchainKernel = 21;
constexpr unsigned ExcludeCallchainUser = 22;
constexpr unsigned UseClockid = 25;
constexpr unsigned ContextSwitch = 26;
constexpr unsigned WriteBackward = 27;
constexpr unsigned Namespaces = 28;
constexpr unsigned Ksymbol = 29;
constexpr unsigned BpfEvent = 30;
constexpr unsigned AuxOutput = 31;
constexpr unsigned Cgroup = 32;
constexpr unsigned TextPoke = 33;
constexpr unsigned BuildId = 34;
constexpr unsigned InheritThread = 35;
constexpr unsigned RemoveOnExec = 36;
constexpr unsigned Sigtrap = 37;
} // namespace attrbits

/// perf_event_attr.size of PERF_ATTR_SIZE_VER7, the largest perf 6.1 reads.
constexpr uint32_t AttrSizeVer7 = 128;

/// More perf_event_header.misc bits (their meaning depends on the type).
enum : uint16_t {
  PERF_RECORD_MISC_SWITCH_OUT = 1 << 13,
  PERF_RECORD_MISC_EXACT_IP = 1 << 14,
  PERF_RECORD_MISC_SWITCH_OUT_PREEMPT = 1 << 14,
};

/// perf_branch_entry.new_type values, used when type == PERF_BR_EXTEND_ABI.
enum BranchNewType : uint8_t {
  PERF_BR_NEW_FAULT_ALGN = 0,
  PERF_BR_NEW_FAULT_DATA = 1,
  PERF_BR_NEW_FAULT_INST = 2,
  PERF_BR_NEW_ARCH_1 = 3,
  PERF_BR_NEW_ARCH_2 = 4,
  PERF_BR_NEW_ARCH_3 = 5,
  PERF_BR_NEW_ARCH_4 = 6,
  PERF_BR_NEW_ARCH_5 = 7,
};

/// perf_branch_entry.spec values (2 bits).
enum BranchSpec : uint8_t {
  PERF_BR_SPEC_NA = 0,
  PERF_BR_SPEC_WRONG_PATH = 1,
  PERF_BR_NON_SPEC_CORRECT_PATH = 2,
  PERF_BR_SPEC_CORRECT_PATH = 3,
};

/// perf_branch_entry.priv values (3 bits).
enum BranchPriv : uint8_t {
  PERF_BR_PRIV_UNKNOWN = 0,
  PERF_BR_PRIV_USER = 1,
  PERF_BR_PRIV_KERNEL = 2,
  PERF_BR_PRIV_HV = 3,
};

/// The abi word in front of PERF_SAMPLE_REGS_USER / REGS_INTR.
enum : uint64_t {
  PERF_SAMPLE_REGS_ABI_NONE = 0,
  PERF_SAMPLE_REGS_ABI_32 = 1,
  PERF_SAMPLE_REGS_ABI_64 = 2,
};

/// PERF_RECORD_AUX flags.
enum : uint64_t {
  PERF_AUX_FLAG_TRUNCATED = 0x01,
  PERF_AUX_FLAG_OVERWRITE = 0x02,
  PERF_AUX_FLAG_PARTIAL = 0x04,
  PERF_AUX_FLAG_COLLISION = 0x08,
};

/// HEADER_COMPRESSED type value for zstd.
constexpr uint32_t PERF_COMP_ZSTD = 1;

} // namespace perfabi
} // namespace lbr2prof

#endif
