//===- ReaderImpl.h - state of the perf.data reader -------------*- C++ -*-===//
//
// Private to lib/PerfData: the reader's state (source, window, zstd stream,
// per-event layouts) shared by PerfReader.cpp (header and record loop) and
// Records.cpp (per-record decoding and decompression).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_LIB_PERFDATA_READERIMPL_H
#define LBR2PROF_LIB_PERFDATA_READERIMPL_H

#include "ByteSource.h"
#include "Decode.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Support/Error.h"
#include <deque>
#include "llvm/Support/FormatVariadic.h"
#include <zstd.h>

namespace lbr2prof {
using decode::Layout;
using llvm::ArrayRef;
using llvm::Error;
using llvm::formatv;
using llvm::StringRef;

class PerfReader::Impl {
public:
  std::unique_ptr<ByteSource> Src;
  PerfReaderOptions Opts;
  PerfFileInfo Info;
  std::vector<Layout> Layouts;

  // Sequential window over the data: Buf[Pos, End) holds unread bytes that
  // start at file offset BufBase + Pos.
  std::shared_ptr<WindowBytes> Win;
  /// Windows handed out before, reused once nobody holds them: at most
  /// MaxSpareWindows (the time-order queue and the counting threads'
  /// batches held 8 at once on bench/pgo's recordings).
  std::vector<std::shared_ptr<WindowBytes>> Spare;
  static constexpr size_t MaxSpareWindows = 16;
  WindowBytes &buf() { return *Win; }
  /// One decoder per attr, for handlers that decode samples themselves.
  std::vector<SampleDecoder> Decoders;
  size_t Pos = 0, End = 0;
  uint64_t BufBase = 0;
  bool Eof = false;
  /// Offset where the data stops (file mode); ~0 for a pipe.
  uint64_t DataEnd = ~0ULL;
  uint64_t RecordIndex = 0;
  /// Samples whose id matches no event (several events in the file).
  uint64_t UnknownIdSamples = 0;
  /// Faults survived (EventSource::warnings).
  std::vector<std::string> Warnings;
  void warn(const InputLocation &L, const llvm::Twine &Msg) {
    Warnings.push_back(L.str() + ": " + Msg.str());
  }

  // zstd state for COMPRESSED records: one stream for the whole file.
  ZSTD_DStream *ZStream = nullptr;
  std::vector<uint8_t> ZOut;
  size_t ZLen = 0; // bytes of ZOut holding undecoded output
  uint64_t ZDecodedTotal = 0;

  // Time ordering (Opts.TimeOrdered): queued records. A record whose
  // bytes live in a shared read window keeps that window alive instead of
  // being copied; others (decompressed, pipe) are copied into QueueBytes.
  struct Queued {
    uint64_t Time, Seq;
    size_t At;
    RecordInfo Info;
    std::shared_ptr<WindowBytes> Win;
  };
  std::deque<Queued> Queue;
  /// The queue is in time order (records arrived in order since the last
  /// flush): flushing takes its front without sorting.
  bool QueueSorted = true;
  /// Queued records whose bytes were copied into QueueBytes.
  size_t QueueCopies = 0;
  std::vector<uint8_t> QueueBytes;
  uint64_t QueueSeq = 0, MaxTime = 0, NextFlush = 0;
  /// Bytes the queue holds (copied or in windows it keeps).
  uint64_t QueuedSize = 0;

  /// Queues R if it has a timestamp and ordering is on; else dispatches.
  Error deliver(RecordInfo &R, PerfEventHandler &H);
  /// Delivers queued records with time <= Limit, in time order.
  Error flushQueue(uint64_t Limit, PerfEventHandler &H);
  bool recordTime(const RecordInfo &R, uint64_t &T);

  ~Impl() {
    if (ZStream)
      ZSTD_freeDStream(ZStream);
  }

  /// Type of a record whose header could not be read.
  static constexpr uint32_t UnknownType = ~0u;
  InputLocation loc(uint64_t Off, uint64_t Rec = InputLocation::NoRecord,
                    uint32_t Type = UnknownType) const {
    InputLocation L;
    L.File = Src->name();
    L.Offset = Off;
    L.Record = Rec;
    if (Rec != InputLocation::NoRecord && Type != UnknownType) {
      StringRef N = recordTypeName(Type);
      L.RecordKind = N.empty() ? formatv("type {0}", Type).str() : N.str();
    }
    return L;
  }

  Error readHeader();
  Error readFileHeader(ArrayRef<uint8_t> H);
  Error addAttr(ArrayRef<uint8_t> AttrBytes, ArrayRef<ulittle64> Ids,
                const InputLocation &L);
  Error fill(size_t Need);
  /// Goes on in another window when handlers (or the time-order queue)
  /// hold records of Win: a spare that nobody holds any more, or a fresh
  /// one, with Win's unread bytes [Pos, End) copied to its front; Win
  /// becomes a spare.
  void leaveWindow();
  Error skipBytes(uint64_t N, const InputLocation &L);
  Error run(PerfEventHandler &H);
  /// Calls H.onRecord, then decodes R by its type and calls the matching
  /// callback (header records update Info instead; unknown types are
  /// ignored).
  Error dispatch(RecordInfo &R, PerfEventHandler &H);
  /// The error for record R of fewer bytes than the Need its type requires.
  Error tooShort(const RecordInfo &R, size_t Need) const;
  /// A SAMPLE: decoded against its event's layout for H.onSample, or handed
  /// over undecoded to H.onRawSample. Runs once per sample: always inlined
  /// into dispatch (Records.cpp), which is what it was before the split.
  Error dispatchSample(const RecordInfo &R, PerfEventHandler &H);
  /// An MMAP or MMAP2 record (with inode or build-id) for H.onMmap.
  Error dispatchMmap(const RecordInfo &R, PerfEventHandler &H);
  /// A COMM record for H.onComm.
  Error dispatchComm(const RecordInfo &R, PerfEventHandler &H);
  /// A FORK or EXIT record for H.onTask.
  Error dispatchTask(const RecordInfo &R, PerfEventHandler &H);
  /// A LOST or LOST_SAMPLES record for H.onLost.
  Error dispatchLost(const RecordInfo &R, PerfEventHandler &H);
  /// A pipe-mode HEADER_ATTR: the attr and its sample ids join Info.
  Error readAttrRecord(const RecordInfo &R);
  /// A pipe-mode HEADER_FEATURE: parsed into Info; a damaged feature or an
  /// out-of-range id is a warning.
  Error readFeatureRecord(const RecordInfo &R);
  /// An EVENT_UPDATE of type NAME names its event in Info; others are
  /// ignored.
  void readEventUpdateRecord(const RecordInfo &R);
  /// A pipe-mode HEADER_BUILD_ID record, appended to Info.BuildIds.
  Error readBuildIdRecord(const RecordInfo &R);
  /// HEADER_TRACING_DATA: skips the (8-aligned) payload that follows the
  /// record outside its size.
  Error skipTracingData(const RecordInfo &R);
  /// AUXTRACE: skips the trace bytes that follow the record outside its
  /// size.
  Error skipAuxtrace(const RecordInfo &R);
  /// COMPRESSED or COMPRESSED2: decompresses the zstd bytes and delivers
  /// the records inside.
  Error dispatchCompressed(const RecordInfo &R, PerfEventHandler &H);
  Error decompress(ArrayRef<uint8_t> In, const RecordInfo &Chunk,
                   PerfEventHandler &H);
  Error drainDecompressed(const RecordInfo &Chunk, PerfEventHandler &H);
  const Layout *layoutFor(ArrayRef<uint8_t> Rec, bool IsSample);
  void trailer(ArrayRef<uint8_t> Rec, SampleId &Id, size_t &BodyEnd);
  uint64_t consumed() const { return BufBase + Pos; }
};

} // namespace lbr2prof

#endif
