//===- ProcessMaps.h - which file each runtime address belongs to -*- C++ -*-===//
//
// Tracks the executable mappings of every process as MMAP/MMAP2, FORK and
// COMM exec records arrive, and answers "which DSO, and at which file offset,
// is runtime address A of process P". FORK copies the parent's mappings to
// the child; COMM with the exec flag drops them (the new image maps itself
// again); a newer mapping replaces the parts of older ones it overlaps, as
// the kernel does. Kernel mappings (pid -1) serve every process, but only
// for kernel-mode addresses: as perf does, the sample's cpumode decides
// which maps an address is looked up in (AddrMode), never a map's length.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_AGGREGATE_PROCESSMAPS_H
#define LBR2PROF_AGGREGATE_PROCESSMAPS_H

#include "lbr2prof/PerfData/Events.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include <cstdint>
#include <string>
#include <vector>

namespace lbr2prof {

/// One executable mapping: runtime [Start, End) maps file bytes from PgOff.
struct Mapping {
  uint64_t Start = 0, End = 0;
  /// File offset of Start.
  uint64_t PgOff = 0;
  /// Index into ProcessMaps::dsos().
  unsigned Dso = 0;

  /// File offset of runtime address A (A must lie inside the mapping).
  uint64_t fileOffset(uint64_t A) const { return A - Start + PgOff; }
};

/// A mapped file, named as the mmap record names it.
struct DsoInfo {
  std::string Path;
  /// Build-id from an MMAP2 record, if one carried it.
  std::vector<uint8_t> BuildId;
};

/// Which maps a runtime address is looked up in. perf decides by the
/// sample's cpumode (perf_event_header.misc): a user-mode IP is found in
/// the process's own maps only, a kernel-mode one in the kernel's only.
/// This matters for perf up to 4.x, which wrote the kernel's MMAP as one
/// range covering user space too ([0, +0xffffffff9fffffff) in perf 3.4
/// files). Branch-stack entries and call-chain frames without a context
/// marker carry no mode: Either tries the process's maps, then the
/// kernel's, perf's order for branch addresses.
enum class AddrMode : uint8_t {
  User,
  Kernel,
  Either,
  /// Hypervisor and guest modes: no map of this recording holds them.
  None,
};

/// The AddrMode of a record whose perf_event_header.misc is Misc. An
/// unknown cpumode (0, written by some old perf tools) is Either.
AddrMode addrModeOf(uint16_t Misc);

class ProcessMaps {
public:
  /// Records an mmap; non-executable mappings are ignored. A kernel text
  /// mapping (`[kernel.kallsyms]_text` or `_stext`) whose PgOff lies inside
  /// it starts at PgOff: perf stores there the runtime address of the
  /// symbol its name ends with (perf's reference relocation symbol), while
  /// perf up to 4.x wrote a start of 0 or below the kernel. Its offsets
  /// are then offsets from that symbol, the same whatever the kernel's
  /// load address (KASLR), and --kernel turns them into vmlinux addresses.
  void addMmap(const MmapEvent &E);
  /// Copies the parent's mappings to a new process (not to a new thread).
  void fork(uint32_t Pid, uint32_t PPid);
  /// exec(): the process's old mappings are gone.
  void exec(uint32_t Pid);
  /// The mapping holding runtime address A in process Pid, or null, looked
  /// up in the maps that Mode names. Safe to call from several threads at
  /// once (no hidden cache).
  const Mapping *find(uint32_t Pid, uint64_t A, AddrMode Mode) const;
  /// Lookups in one process's maps, or in the kernel's.
  const Mapping *findUser(uint32_t Pid, uint64_t A) const;
  const Mapping *findKernel(uint64_t A) const { return lookup(Kernel, A); }
  const std::vector<DsoInfo> &dsos() const { return Dsos; }
  /// Distinct mapped files a Loc can name (15 bits of DSO index). Files
  /// past the last but one share the last index, named OverflowDsoPath:
  /// their samples are counted apart from every real file (a recording of
  /// a whole system over days can map that many; the 65,536th file used to
  /// wrap around to file #0).
  static constexpr unsigned MaxDsos = (1u << 15) - 1;
  static constexpr const char *OverflowDsoPath = "[more mapped files]";
  /// Forgets every process (between input files) but keeps the DSO table,
  /// so DSO indices stay valid across files.
  void clearProcesses() {
    ByPid.clear();
    Kernel.clear();
    Version = nextVersion();
  }
  /// Changes whenever a lookup's answer may change (mappings added or
  /// dropped); copies share it until one changes. For caches of answers.
  uint64_t version() const { return Version; }

  /// The DSO index of a file, made on first use (raw profiles name their
  /// files without mapping them). Files are told apart by path and
  /// build-id, so two builds mapped from one path (a fleet's recordings of
  /// yesterday's and today's build) stay two files; a file whose build-id
  /// is unknown is the first of its path, and gives its build-id to the
  /// first of its path without one.
  unsigned dsoIndex(llvm::StringRef Path, llvm::ArrayRef<uint8_t> BuildId);
  /// The build-ids of the recording being read (its build-id table), for
  /// mappings whose records carry none (MMAP, or MMAP2 without
  /// PERF_RECORD_MISC_MMAP_BUILD_ID).
  void setBuildIdTable(llvm::ArrayRef<BuildIdEntry> Table);

private:
  /// Sorted by Start, non-overlapping.
  using MapList = std::vector<Mapping>;
  static void insert(MapList &L, const Mapping &M);
  static uint64_t nextVersion();
  uint64_t Version = nextVersion();
  static const Mapping *lookup(const MapList &L, uint64_t A);

  /// Keyed by the pid widened to 64 bits: DenseMap<uint32_t> reserves the
  /// keys 0xffffffff and 0xfffffffe, which a (corrupt) record may carry.
  llvm::DenseMap<uint64_t, MapList> ByPid;
  MapList Kernel;
  std::vector<DsoInfo> Dsos;
  /// Every DSO index of a path, in the order they were made.
  llvm::StringMap<llvm::SmallVector<unsigned, 1>> DsoByPath;
  llvm::StringMap<std::vector<uint8_t>> TableIds;
};

/// True if two build-ids name the same file. perf may store 20 bytes for a
/// shorter id (zero-padded), so the common prefix is compared, as BOLT
/// does; an empty id matches nothing.
bool sameBuildId(llvm::ArrayRef<uint8_t> A, llvm::ArrayRef<uint8_t> B);

/// The build-id of mapped file D: its MMAP2 record's, else the recording's
/// build-id table entry for its path, else empty.
llvm::ArrayRef<uint8_t> dsoBuildId(const DsoInfo &D,
                                   llvm::ArrayRef<BuildIdEntry> Table);

/// How a mapped file relates to the binary a profile or report is for.
enum class DsoMatch {
  None,           ///< another file
  Same,           ///< same build-id, or same file name and a build-id missing
  BuildIdDiffers, ///< same file name, both build-ids known, different
};
/// The one rule every command uses to find a binary in a recording.
DsoMatch matchDso(llvm::StringRef DsoPath, llvm::ArrayRef<uint8_t> DsoId,
                  llvm::StringRef BinaryPath, llvm::ArrayRef<uint8_t> BinaryId);

} // namespace lbr2prof

#endif
