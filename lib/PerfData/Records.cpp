//===- Records.cpp - decoding each record type and zstd chunks ------------===//
//
// PerfReader::Impl::dispatch turns one raw record into its decoded callback,
// through one helper per record kind (dispatchSample, dispatchMmap, ...).
// Layouts (after the 8-byte perf_event_header; "+ id" = sample_id trailer
// when sample_id_all is set):
//   MMAP      u32 pid, tid; u64 addr, len, pgoff; char filename[] + id
//   MMAP2     u32 pid, tid; u64 addr, len, pgoff;
//             { u32 maj, min; u64 ino, ino_generation } or, with
//             MISC_MMAP_BUILD_ID, { u8 size; u8 res[3]; u8 build_id[20] };
//             u32 prot, flags; char filename[] + id
//   COMM      u32 pid, tid; char comm[] + id
//   FORK/EXIT u32 pid, ppid, tid, ptid; u64 time + id
//   LOST      u64 id, lost + id          LOST_SAMPLES u64 lost + id
//   HEADER_ATTR     perf_event_attr (attr.size bytes); u64 ids[]
//   HEADER_FEATURE  u64 feature; feature data
//   HEADER_TRACING_DATA  u32 size; then size bytes (8-aligned) NOT counted
//                        in header.size
//   AUXTRACE  u64 size, offset, reference; u32 idx, tid, cpu, res; then
//             size bytes of trace NOT counted in header.size
//   COMPRESSED   zstd bytes        COMPRESSED2  u64 data_size; zstd bytes
//   EVENT_UPDATE u64 type; u64 id; then for type NAME (2) char name[]
//
//===----------------------------------------------------------------------===//
#include "ReaderImpl.h"
#include "llvm/Support/Compiler.h"

using namespace llvm;
using namespace lbr2prof::perfabi;
using namespace lbr2prof::decode;

namespace lbr2prof {

static uint32_t r32(const uint8_t *P) { return support::endian::read32le(P); }
static uint64_t r64(const uint8_t *P) { return support::endian::read64le(P); }

static StringRef cstr(ArrayRef<uint8_t> B, size_t From, size_t To) {
  if (From >= To || To > B.size())
    return StringRef();
  const char *P = reinterpret_cast<const char *>(B.data() + From);
  return StringRef(P, strnlen(P, To - From));
}

Error PerfReader::Impl::tooShort(const RecordInfo &R, size_t Need) const {
  return inputError(loc(R.FileOffset, R.Index, R.Type),
                    formatv("record of {0} bytes is too short, expected at "
                            "least {1}",
                            R.Bytes.size(), Need));
}

LLVM_ATTRIBUTE_ALWAYS_INLINE Error
PerfReader::Impl::dispatchSample(const RecordInfo &R, PerfEventHandler &H) {
  ArrayRef<uint8_t> B = R.Bytes;
  const Layout *L = layoutFor(B, true);
  if (!L) {
    if (Layouts.empty())
      return inputError(loc(R.FileOffset, R.Index, R.Type),
                        "sample before any event description (no attr)");
    ++UnknownIdSamples;
    return Error::success();
  }
  unsigned AttrIndex = unsigned(L - Layouts.data());
  if (H.wantsRawSamples()) {
    if (Decoders.size() != Info.Attrs.size()) {
      Decoders.clear();
      for (const EventAttr &A : Info.Attrs)
        Decoders.emplace_back(A);
    }
    return H.onRawSample(R, AttrIndex, Decoders[AttrIndex]);
  }
  Sample S;
  S.AttrIndex = AttrIndex;
  S.Misc = R.Misc;
  std::string Why;
  if (!decodeSample(B.drop_front(8), *L, S, Why))
    return inputError(loc(R.FileOffset, R.Index, R.Type), Why);
  return H.onSample(S, R);
}

Error PerfReader::Impl::dispatchMmap(const RecordInfo &R, PerfEventHandler &H) {
  ArrayRef<uint8_t> B = R.Bytes;
  const uint8_t *P = B.data();
  MmapEvent E;
  E.IsMmap2 = R.Type == PERF_RECORD_MMAP2;
  size_t Fixed = 8 + 8 + 24 + (E.IsMmap2 ? 32 : 0);
  if (B.size() < Fixed)
    return tooShort(R, Fixed);
  size_t BodyEnd;
  trailer(B, E.Ident, BodyEnd);
  E.Misc = R.Misc;
  E.Pid = r32(P + 8);
  E.Tid = r32(P + 12);
  E.Addr = r64(P + 16);
  E.Len = r64(P + 24);
  E.PgOff = r64(P + 32);
  if (E.IsMmap2) {
    if (E.hasBuildId()) {
      E.BuildId = B.slice(44, std::min<uint8_t>(P[40], 20));
    } else {
      E.Maj = r32(P + 40);
      E.Min = r32(P + 44);
      E.Ino = r64(P + 48);
      E.InoGeneration = r64(P + 56);
    }
    E.Prot = r32(P + 64);
    E.Flags = r32(P + 68);
  }
  E.Filename = cstr(B, Fixed, std::max(BodyEnd, Fixed));
  return H.onMmap(E, R);
}

Error PerfReader::Impl::dispatchComm(const RecordInfo &R, PerfEventHandler &H) {
  ArrayRef<uint8_t> B = R.Bytes;
  if (B.size() < 16)
    return tooShort(R, 16);
  CommEvent E;
  size_t BodyEnd;
  trailer(B, E.Ident, BodyEnd);
  E.Misc = R.Misc;
  E.Pid = r32(B.data() + 8);
  E.Tid = r32(B.data() + 12);
  E.Comm = cstr(B, 16, std::max<size_t>(BodyEnd, 16));
  return H.onComm(E, R);
}

Error PerfReader::Impl::dispatchTask(const RecordInfo &R, PerfEventHandler &H) {
  ArrayRef<uint8_t> B = R.Bytes;
  const uint8_t *P = B.data();
  if (B.size() < 32)
    return tooShort(R, 32);
  TaskEvent E;
  size_t BodyEnd;
  trailer(B, E.Ident, BodyEnd);
  E.IsFork = R.Type == PERF_RECORD_FORK;
  E.Pid = r32(P + 8);
  E.PPid = r32(P + 12);
  E.Tid = r32(P + 16);
  E.PTid = r32(P + 20);
  E.Time = r64(P + 24);
  return H.onTask(E, R);
}

Error PerfReader::Impl::dispatchLost(const RecordInfo &R, PerfEventHandler &H) {
  ArrayRef<uint8_t> B = R.Bytes;
  const uint8_t *P = B.data();
  size_t Need = R.Type == PERF_RECORD_LOST ? 24 : 16;
  if (B.size() < Need)
    return tooShort(R, Need);
  LostEvent E;
  size_t BodyEnd;
  trailer(B, E.Ident, BodyEnd);
  if (R.Type == PERF_RECORD_LOST) {
    E.Id = r64(P + 8);
    E.Lost = r64(P + 16);
  } else {
    E.Lost = r64(P + 8);
  }
  return H.onLost(E, R);
}

Error PerfReader::Impl::readAttrRecord(const RecordInfo &R) {
  ArrayRef<uint8_t> B = R.Bytes;
  if (B.size() < 8 + AttrSizeVer0)
    return tooShort(R, 8 + AttrSizeVer0);
  uint32_t Size = r32(B.data() + 12);
  if (Size < AttrSizeVer0 || Size > B.size() - 8 || (B.size() - 8 - Size) % 8)
    return inputError(loc(R.FileOffset, R.Index, R.Type),
                      formatv("attr size {0} does not fit the {1}-byte "
                              "record",
                              Size, B.size()));
  ArrayRef<uint8_t> Ids = B.drop_front(8 + Size);
  return addAttr(
      B.slice(8, Size),
      ArrayRef<ulittle64>(reinterpret_cast<const ulittle64 *>(Ids.data()),
                          Ids.size() / 8),
      loc(R.FileOffset, R.Index, R.Type));
}

Error PerfReader::Impl::readFeatureRecord(const RecordInfo &R) {
  ArrayRef<uint8_t> B = R.Bytes;
  if (B.size() < 16)
    return tooShort(R, 16);
  uint64_t Feat = r64(B.data() + 8);
  if (Feat >= HEADER_FEAT_BITS) {
    warn(loc(R.FileOffset, R.Index, R.Type),
         formatv("feature id {0} is out of range; record ignored", Feat));
    return Error::success();
  }
  // perf ends the pipe-mode feature list with HEADER_LAST_FEATURE.
  if (Feat == HEADER_LAST_FEATURE)
    return Error::success();
  // A damaged feature is skipped, as in file mode (the record itself is
  // whole: its size said where the next one starts).
  std::string Why;
  if (!parseFeature(unsigned(Feat), B.drop_front(16), Info, Why))
    warn(loc(R.FileOffset, R.Index, R.Type), Why + "; feature ignored");
  return Error::success();
}

void PerfReader::Impl::readEventUpdateRecord(const RecordInfo &R) {
  // Pipe mode names events this way (file mode: HEADER_EVENT_DESC);
  // type 2 is PERF_EVENT_UPDATE__NAME, id one of the event's sample ids.
  constexpr uint64_t EventUpdateName = 2;
  ArrayRef<uint8_t> B = R.Bytes;
  if (B.size() < 24 || r64(B.data() + 8) != EventUpdateName)
    return;
  int A = Info.attrForId(r64(B.data() + 16));
  if (A >= 0)
    Info.Attrs[A].Name = cstr(B, 24, B.size()).str();
}

Error PerfReader::Impl::readBuildIdRecord(const RecordInfo &R) {
  BuildIdEntry E;
  std::string Why;
  if (!parseBuildIdEvent(R.Bytes, E, Why))
    return inputError(loc(R.FileOffset, R.Index, R.Type), Why);
  Info.BuildIds.push_back(std::move(E));
  return Error::success();
}

Error PerfReader::Impl::skipTracingData(const RecordInfo &R) {
  ArrayRef<uint8_t> B = R.Bytes;
  if (B.size() < 12)
    return tooShort(R, 12);
  if (R.FromCompressed)
    return inputError(loc(R.FileOffset, R.Index, R.Type),
                      "tracing data inside a compressed chunk");
  uint64_t Size = r32(B.data() + 8);
  return skipBytes((Size + 7) & ~7ULL, loc(R.FileOffset, R.Index, R.Type));
}

Error PerfReader::Impl::skipAuxtrace(const RecordInfo &R) {
  ArrayRef<uint8_t> B = R.Bytes;
  if (B.size() < 48)
    return tooShort(R, 48);
  if (R.FromCompressed)
    return inputError(loc(R.FileOffset, R.Index, R.Type),
                      "AUXTRACE payload inside a compressed chunk");
  return skipBytes(r64(B.data() + 8), loc(R.FileOffset, R.Index, R.Type));
}

Error PerfReader::Impl::dispatchCompressed(const RecordInfo &R,
                                           PerfEventHandler &H) {
  ArrayRef<uint8_t> B = R.Bytes;
  if (R.FromCompressed)
    return inputError(loc(R.FileOffset, R.Index, R.Type),
                      "compressed record nested inside a compressed chunk");
  ArrayRef<uint8_t> Data = B.drop_front(8);
  if (R.Type == PERF_RECORD_COMPRESSED2) {
    if (B.size() < 16)
      return tooShort(R, 16);
    uint64_t N = r64(B.data() + 8);
    if (N > B.size() - 16)
      return inputError(loc(R.FileOffset, R.Index, R.Type),
                        formatv("compressed data claims {0} bytes, the "
                                "record holds {1}",
                                N, B.size() - 16));
    Data = B.slice(16, N);
  }
  return decompress(Data, R, H);
}

Error PerfReader::Impl::dispatch(RecordInfo &R, PerfEventHandler &H) {
  if (Error E = H.onRecord(R))
    return E;
  switch (R.Type) {
  case PERF_RECORD_SAMPLE:
    return dispatchSample(R, H);
  case PERF_RECORD_MMAP:
  case PERF_RECORD_MMAP2:
    return dispatchMmap(R, H);
  case PERF_RECORD_COMM:
    return dispatchComm(R, H);
  case PERF_RECORD_FORK:
  case PERF_RECORD_EXIT:
    return dispatchTask(R, H);
  case PERF_RECORD_LOST:
  case PERF_RECORD_LOST_SAMPLES:
    return dispatchLost(R, H);
  case PERF_RECORD_HEADER_ATTR:
    return readAttrRecord(R);
  case PERF_RECORD_HEADER_FEATURE:
    return readFeatureRecord(R);
  case PERF_RECORD_EVENT_UPDATE:
    readEventUpdateRecord(R);
    return Error::success();
  case PERF_RECORD_HEADER_BUILD_ID:
    return readBuildIdRecord(R);
  case PERF_RECORD_HEADER_TRACING_DATA:
    return skipTracingData(R);
  case PERF_RECORD_AUXTRACE:
    return skipAuxtrace(R);
  case PERF_RECORD_COMPRESSED:
  case PERF_RECORD_COMPRESSED2:
    return dispatchCompressed(R, H);
  default:
    return Error::success();
  }
}

bool PerfReader::Impl::recordTime(const RecordInfo &R, uint64_t &T) {
  if (R.Type >= PERF_RECORD_HEADER_ATTR)
    return false;
  ArrayRef<uint8_t> B = R.Bytes;
  if (R.Type == PERF_RECORD_SAMPLE) {
    const Layout *L = layoutFor(B, true);
    if (!L || L->TimePosInSample < 0 ||
        B.size() < size_t(16 + 8 * L->TimePosInSample))
      return false;
    T = r64(B.data() + 8 + 8 * L->TimePosInSample);
    return true;
  }
  const Layout *L = layoutFor(B, false);
  if (!L || L->TimePosInTrailer < 0 || B.size() < 8 + L->TrailerSize)
    return false;
  T = r64(B.data() + B.size() - L->TrailerSize + 8 * L->TimePosInTrailer);
  return true;
}

/// The most bytes of records the time-order queue holds before it
/// delivers its older half without waiting for a FINISHED_ROUND, as perf's
/// ordered-events queue does when it reaches its allocation limit: a
/// recording without rounds (lbr-record's have one, at the end) is then
/// not held in memory whole. Real recordings flush at every round, so the
/// limit only bounds what waits. On a 249 MB emulated recording, -j1: no
/// ordering 0.30 s / 35 MB; 64 MB queued 0.85-1.15 s / 146 MB (windows kept
/// alive and fresh ones faulted in); 8 MB 0.38-0.55 s / 39 MB. 4 MB (with
/// 1 MB windows): bench/pgo's line and fdata runs 1-3 MB lower, every
/// output of bench/pgo, llvm-profgen's inputs and real-perf-data's
/// recordings unchanged; 2 MB took 0.5 MB more off jq's and nothing off
/// sqlite's.
static constexpr uint64_t QueueLimit = 4 << 20;

Error PerfReader::Impl::deliver(RecordInfo &R, PerfEventHandler &H) {
  if (!Opts.TimeOrdered)
    return dispatch(R, H);
  if (R.Type == PERF_RECORD_FINISHED_ROUND) {
    if (Error E = flushQueue(NextFlush, H))
      return E;
    NextFlush = MaxTime;
    return dispatch(R, H);
  }
  uint64_t T;
  if (!recordTime(R, T))
    return dispatch(R, H);
  if (!Queue.empty() && T < Queue.back().Time)
    QueueSorted = false;
  MaxTime = std::max(MaxTime, T);
  Queued Q{T, QueueSeq++, 0, R, nullptr};
  if (R.Window && *R.Window) {
    Q.Win = *R.Window;
  } else {
    Q.At = QueueBytes.size();
    QueueBytes.insert(QueueBytes.end(), R.Bytes.begin(), R.Bytes.end());
    ++QueueCopies;
  }
  Queue.push_back(std::move(Q));
  QueuedSize += R.Size;
  if (QueuedSize <= QueueLimit)
    return Error::success();
  // Deliver up to the median time of what is queued.
  if (QueueSorted)
    return flushQueue(Queue[Queue.size() / 2].Time, H);
  std::vector<uint64_t> Times;
  Times.reserve(Queue.size());
  for (const Queued &X : Queue)
    Times.push_back(X.Time);
  std::nth_element(Times.begin(), Times.begin() + Times.size() / 2,
                   Times.end());
  return flushQueue(Times[Times.size() / 2], H);
}

Error PerfReader::Impl::flushQueue(uint64_t Limit, PerfEventHandler &H) {
  if (Queue.empty())
    return Error::success();
  // Equal times keep arrival order, as in perf's queue.
  if (!QueueSorted)
    std::stable_sort(Queue.begin(), Queue.end(),
                     [](const Queued &A, const Queued &B) {
                       return A.Time < B.Time;
                     });
  QueueSorted = true;
  while (!Queue.empty() && Queue.front().Time <= Limit) {
    Queued &Q = Queue.front();
    RecordInfo R = Q.Info;
    if (Q.Win) {
      R.Window = &Q.Win;
    } else {
      R.Bytes = ArrayRef<uint8_t>(QueueBytes.data() + Q.At, R.Size);
      R.Window = nullptr;
      --QueueCopies;
    }
    QueuedSize -= R.Size;
    if (Error E = dispatch(R, H))
      return E;
    Queue.pop_front();
  }
  // Copied bytes: keep those still queued, compacted.
  if (!QueueCopies) {
    QueueBytes.clear();
    return Error::success();
  }
  std::vector<uint8_t> Rest;
  for (Queued &Q : Queue) {
    if (Q.Win)
      continue;
    Rest.insert(Rest.end(), QueueBytes.begin() + Q.At,
                QueueBytes.begin() + Q.At + Q.Info.Size);
    Q.At = Rest.size() - Q.Info.Size;
  }
  QueueBytes.swap(Rest);
  return Error::success();
}

// perf compresses all records into one zstd stream, flushing it at the end
// of each COMPRESSED record, so a decompressed record may continue in the
// next chunk: undecoded bytes stay at the front of ZOut.
Error PerfReader::Impl::decompress(ArrayRef<uint8_t> In,
                                   const RecordInfo &Chunk,
                                   PerfEventHandler &H) {
  if (!ZStream) {
    ZStream = ZSTD_createDStream();
    if (!ZStream || ZSTD_isError(ZSTD_initDStream(ZStream)))
      return makeError("cannot initialize the zstd decoder");
    ZOut.resize(1 << 20);
  }
  ZSTD_inBuffer ZIn{In.data(), In.size(), 0};
  while (true) {
    ZSTD_outBuffer ZO{ZOut.data() + ZLen, ZOut.size() - ZLen, 0};
    size_t Ret = ZSTD_decompressStream(ZStream, &ZO, &ZIn);
    if (ZSTD_isError(Ret))
      return inputError(loc(Chunk.FileOffset, Chunk.Index, Chunk.Type),
                        formatv("corrupt zstd data at compressed byte {0} of "
                                "the chunk: {1}",
                                ZIn.pos, ZSTD_getErrorName(Ret)));
    ZLen += ZO.pos;
    ZDecodedTotal += ZO.pos;
    if (Error E = drainDecompressed(Chunk, H))
      return E;
    bool OutFull = ZO.pos == ZO.size;
    if (ZIn.pos == ZIn.size && !OutFull)
      break;
    if (ZO.pos == 0 && !OutFull)
      return inputError(loc(Chunk.FileOffset, Chunk.Index, Chunk.Type),
                        "zstd decoder made no progress");
  }
  return Error::success();
}

Error PerfReader::Impl::drainDecompressed(const RecordInfo &Chunk,
                                          PerfEventHandler &H) {
  size_t At = 0;
  while (ZLen - At >= 8) {
    const uint8_t *P = ZOut.data() + At;
    RecordInfo R;
    R.Type = r32(P);
    R.Misc = support::endian::read16le(P + 4);
    R.Size = support::endian::read16le(P + 6);
    R.FileOffset = Chunk.FileOffset;
    R.FromCompressed = true;
    if (R.Size < 8)
      return inputError(loc(Chunk.FileOffset, RecordIndex, R.Type),
                        formatv("record at decompressed byte {0} has size {1}, "
                                "smaller than its 8-byte header",
                                ZDecodedTotal - ZLen + At, R.Size));
    if (ZLen - At < R.Size)
      break;
    R.Index = RecordIndex++;
    R.Bytes = ArrayRef<uint8_t>(P, R.Size);
    At += R.Size;
    if (Error E = deliver(R, H))
      return E;
  }
  memmove(ZOut.data(), ZOut.data() + At, ZLen - At);
  ZLen -= At;
  return Error::success();
}

} // namespace lbr2prof
