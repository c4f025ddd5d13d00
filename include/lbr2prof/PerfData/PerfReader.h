//===- PerfReader.h - streaming perf.data reader ----------------*- C++ -*-===//
//
// Reads a perf.data file or pipe-mode stream and calls a handler for every
// record, in file order. The data section is read sequentially through a
// fixed-size window, so memory stays bounded whatever the file size; records
// are decoded in place (views into the window). COMPRESSED records (perf
// record -z) are decompressed as one continuous zstd stream, and records that
// straddle two chunks are reassembled. Everything read is checked against
// the bytes that remain before use; a fault yields an InputError naming the
// file, the offset and the record.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_PERFDATA_PERFREADER_H
#define LBR2PROF_PERFDATA_PERFREADER_H

#include "lbr2prof/PerfData/Events.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <bitset>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lbr2prof {

/// The parts of perf_event_attr that decoding and reporting need.
struct EventAttr {
  uint32_t Type = 0;
  /// Size of the attr as stored (ABI version).
  uint32_t Size = 0;
  uint64_t Config = 0;
  /// sample_period, or sample_freq when Freq is set.
  uint64_t SamplePeriodOrFreq = 0;
  uint64_t SampleType = 0;
  uint64_t ReadFormat = 0;
  /// The flag bitfield at offset 40 (perfabi::attrbits).
  uint64_t Flags = 0;
  uint64_t BranchSampleType = 0;
  uint64_t SampleRegsUser = 0;
  uint32_t SampleStackUser = 0;
  uint64_t SampleRegsIntr = 0;
  /// Sample ids that belong to this event.
  std::vector<uint64_t> Ids;
  /// Event name from HEADER_EVENT_DESC, if present.
  std::string Name;

  bool sampleIdAll() const {
    return (Flags >> perfabi::attrbits::SampleIdAll) & 1;
  }
  bool freq() const { return (Flags >> perfabi::attrbits::Freq) & 1; }
  bool hasBranchHwIndex() const {
    return BranchSampleType & perfabi::PERF_SAMPLE_BRANCH_HW_INDEX;
  }
};

/// One entry of the HEADER_BUILD_ID feature (or a HEADER_BUILD_ID record).
struct BuildIdEntry {
  int32_t Pid = 0;
  uint16_t Misc = 0;
  /// The build-id bytes (8, 16 or 20 in practice).
  std::vector<uint8_t> Id;
  std::string Filename;
};

/// HEADER_COMPRESSED.
struct CompressionInfo {
  uint32_t Version = 0, Type = 0, Level = 0, Ratio = 0, MmapLen = 0;
};

/// Header-level facts: file features and the events.
struct PerfFileInfo {
  bool PipeMode = false;
  /// Total size of the input in bytes (0 for a pipe).
  uint64_t FileSize = 0;
  uint64_t DataOffset = 0, DataSize = 0;
  std::vector<EventAttr> Attrs;
  /// Feature bits present in the file (or HEADER_FEATURE records seen).
  std::bitset<perfabi::HEADER_FEAT_BITS> Features;
  std::string Hostname, OsRelease, Version, Arch, CpuDesc, CpuId;
  uint32_t NrCpusAvail = 0, NrCpusOnline = 0;
  uint64_t TotalMemKb = 0;
  std::vector<std::string> Cmdline;
  std::vector<BuildIdEntry> BuildIds;
  CompressionInfo Compression;
  uint64_t SampleTimeFirst = 0, SampleTimeLast = 0;
  std::string ClockIdName;
  /// perf script text only: set when no line mapped the profiled binary
  /// (see EventSource::assumeMapping) and its samples were taken to hit it
  /// at this runtime address, its preferred (link-time) address.
  std::optional<uint64_t> AssumedLoadAddress;
  /// perf script text only: lines that carry no data and were skipped (a
  /// tool's banner such as "Using perf wrapper ..."); comments are not
  /// counted.
  uint64_t TextLinesSkipped = 0;

  /// The attr a sample id belongs to, or -1.
  int attrForId(uint64_t Id) const;
  /// Rebuilds the id lookup after Attrs changed.
  void indexIds();

private:
  llvm::DenseMap<uint64_t, unsigned> IdToAttr;
};

/// Decodes SAMPLE records of one event; cheap to copy, usable from any
/// thread.
class SampleDecoder {
public:
  SampleDecoder() = default;
  explicit SampleDecoder(const EventAttr &A);
  /// Decodes Record (header included) into S; on failure says why.
  bool decode(llvm::ArrayRef<uint8_t> Record, unsigned AttrIndex, Sample &S,
              std::string &Why) const;

private:
  uint64_t SampleType = 0, ReadFormat = 0;
  unsigned RegsUser = 0, RegsIntr = 0;
  bool HwIdx = false, Counters = false;
};

/// Receives records from PerfReader. Each callback may return an error to
/// stop reading. The default implementations ignore the record.
class PerfEventHandler {
public:
  virtual ~PerfEventHandler();
  /// Called for every record before its decoded callback (if any).
  virtual llvm::Error onRecord(const RecordInfo &R);
  virtual llvm::Error onSample(const Sample &S, const RecordInfo &R);
  virtual llvm::Error onMmap(const MmapEvent &E, const RecordInfo &R);
  virtual llvm::Error onComm(const CommEvent &E, const RecordInfo &R);
  virtual llvm::Error onTask(const TaskEvent &E, const RecordInfo &R);
  virtual llvm::Error onLost(const LostEvent &E, const RecordInfo &R);
  /// Handlers that decode samples themselves (e.g. on other threads) return
  /// true; they then get onRawSample instead of onSample.
  virtual bool wantsRawSamples() const { return false; }
  virtual llvm::Error onRawSample(const RecordInfo &R, unsigned AttrIndex,
                                  const SampleDecoder &D);
};

/// Reader options.
struct PerfReaderOptions {
  /// Size of the sliding read window in bytes. Samples queued for time
  /// order or for the aggregator's threads keep their window alive, so
  /// this is the grain of what they hold: with 4 MB windows bench/pgo's
  /// fdata runs held 7 of them (29 MB, their whole heap); with 1 MB, 11 MB
  /// at the same speed.
  size_t WindowSize = 1 << 20;
  /// Deliver timestamped records in time order, as perf script and perf
  /// report do: records are queued and, at each FINISHED_ROUND, those not
  /// newer than the largest timestamp of the previous round are sorted and
  /// delivered (perf's ordered-events rule); past 4 MB queued, the older
  /// half goes without waiting for a round. On by default: a process's
  /// FORK, MMAP or exec COMM written by one CPU can come after its samples
  /// written by another, and must apply before them (perf.data.busy.1-3.8:
  /// 39 samples found no mapping in file order). Records in the reader's
  /// shared windows are queued without a copy. Off, records arrive in file
  /// order.
  bool TimeOrdered = true;
};

/// The profiled binary as the perf script reader needs it to place samples
/// that no mapping covers: its path and its executable PT_LOAD segments.
struct AssumedMapping {
  struct Segment {
    /// Link-time (preferred) address and size in memory, file offset.
    uint64_t VAddr = 0, MemSize = 0, Offset = 0;
  };
  std::string Path;
  std::vector<Segment> Segments;
};

/// Anything that yields perf events: a perf.data file or stream, or perf
/// script text.
class EventSource {
public:
  virtual ~EventSource();
  /// True for inputs that may show no mapping of the profiled binary at all
  /// (perf script text written for llvm-profgen): give them the binary with
  /// assumeMapping() before run().
  virtual bool mayLackMappings() const { return false; }
  /// Samples read while no line has mapped a file named as M.Path (same
  /// file name) are taken to hit M at its preferred addresses, as
  /// llvm-profgen assumes: the source yields MMAP2 events for M's segments
  /// in the sample's process first, and sets info().AssumedLoadAddress.
  virtual void assumeMapping(AssumedMapping M) { (void)M; }
  /// Header facts (empty for perf script text, apart from what its lines
  /// imply).
  virtual const PerfFileInfo &info() const = 0;
  /// Streams every event to H, in input order.
  virtual llvm::Error run(PerfEventHandler &H) = 0;
  /// Bytes of the input consumed so far (for progress).
  virtual uint64_t bytesRead() const = 0;
  /// "perf.data", "perf.data (pipe mode)" or "perf script text".
  virtual llvm::StringRef formatName() const = 0;
  /// Faults the reader survived, one line each, rendered like an
  /// InputError ("file: offset 0x1a0 (record #12 FEATURE): ..."): a damaged
  /// optional header feature (skipped), a pipe stream that ends inside its
  /// last record (the partial record dropped). Header faults are known
  /// after opening, tail faults after run(). A client prints them as
  /// warnings; they never change the records delivered before them.
  virtual llvm::ArrayRef<std::string> warnings() const { return {}; }
};

/// Opens Path ("-" for standard input) as perf.data if it starts with the
/// perf magic, and as `perf script` text otherwise.
llvm::Expected<std::unique_ptr<EventSource>>
openEventSource(llvm::StringRef Path, PerfReaderOptions Opts = {});

/// Like openEventSource, over an in-memory buffer that must outlive the
/// source (for tests and fuzzing); Name is used in error messages.
llvm::Expected<std::unique_ptr<EventSource>>
openEventSourceBuffer(llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Name);

class PerfReader : public EventSource {
public:
  /// Opens Path ("-" for standard input) and reads its header, attrs and
  /// features (file mode) or its pipe header (pipe mode).
  static llvm::Expected<std::unique_ptr<PerfReader>>
  open(llvm::StringRef Path, PerfReaderOptions Opts = {});
  /// Reads from an in-memory buffer (for tests and fuzzing); Name is used in
  /// error messages.
  static llvm::Expected<std::unique_ptr<PerfReader>>
  openBuffer(llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Name,
             PerfReaderOptions Opts = {});
  ~PerfReader();

  /// Header facts. In pipe mode attrs and features fill in as their records
  /// are read.
  const PerfFileInfo &info() const override;
  /// Streams the data section (or the rest of the pipe) to H.
  llvm::Error run(PerfEventHandler &H) override;
  uint64_t bytesRead() const override;
  llvm::StringRef formatName() const override;
  llvm::ArrayRef<std::string> warnings() const override;
  /// Samples skipped because their id matched no event.
  uint64_t unknownIdSamples() const;

  class Impl;
  /// Wraps reader state made by open/openBuffer (internal).
  explicit PerfReader(std::unique_ptr<Impl> I);

private:
  std::unique_ptr<Impl> I;
};

/// Returns true if the first 8 bytes of Bytes are a perf.data magic.
bool hasPerfMagic(llvm::ArrayRef<uint8_t> Bytes);

} // namespace lbr2prof

#endif
