//===- PerfReader.cpp - perf.data header and record stream ----------------===//
//
// File mode: perf_file_header, then the attrs section, the feature sections
// (located after the data section), then the data section streamed in order.
// Pipe mode: a 16-byte header followed by records only; attrs and features
// arrive as HEADER_ATTR / HEADER_FEATURE records.
//
//   perf_file_header (104 bytes):
//     0 magic "PERFILE2" | 8 u64 size | 16 u64 attr_size
//    24 attrs {u64 offset, size} | 40 data {offset, size}
//    56 event_types {offset, size} | 72 u64 adds_features[4]
//
// Records are read through a window of fixed size: a record (at most 64 KiB,
// its size is a u16) is always whole in the window when its callback runs.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/PerfData/PerfReader.h"
#include "ReaderImpl.h"
#include "lbr2prof/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include <zstd.h>

using namespace llvm;
using namespace lbr2prof::perfabi;
using namespace lbr2prof::decode;

namespace lbr2prof {

PerfEventHandler::~PerfEventHandler() = default;
Error PerfEventHandler::onRecord(const RecordInfo &) {
  return Error::success();
}
Error PerfEventHandler::onSample(const Sample &, const RecordInfo &) {
  return Error::success();
}
Error PerfEventHandler::onMmap(const MmapEvent &, const RecordInfo &) {
  return Error::success();
}
Error PerfEventHandler::onComm(const CommEvent &, const RecordInfo &) {
  return Error::success();
}
Error PerfEventHandler::onTask(const TaskEvent &, const RecordInfo &) {
  return Error::success();
}
Error PerfEventHandler::onLost(const LostEvent &, const RecordInfo &) {
  return Error::success();
}
Error PerfEventHandler::onRawSample(const RecordInfo &, unsigned,
                                    const SampleDecoder &) {
  return Error::success();
}

int PerfFileInfo::attrForId(uint64_t Id) const {
  auto It = IdToAttr.find(Id);
  return It == IdToAttr.end() ? -1 : int(It->second);
}

void PerfFileInfo::indexIds() {
  IdToAttr.clear();
  for (unsigned I = 0; I < Attrs.size(); ++I)
    for (uint64_t Id : Attrs[I].Ids)
      IdToAttr.try_emplace(Id, I);
}

bool hasPerfMagic(ArrayRef<uint8_t> Bytes) {
  if (Bytes.size() < 8)
    return false;
  uint64_t M = support::endian::read64le(Bytes.data());
  return M == Magic2 || M == Magic2Swapped;
}


const Layout *PerfReader::Impl::layoutFor(ArrayRef<uint8_t> Rec,
                                          bool IsSample) {
  if (Layouts.size() == 1)
    return &Layouts[0];
  if (Layouts.empty())
    return nullptr;
  // Several events: the id tells which one. perf requires every event to
  // place the id at the same position, so the first layout says where.
  const Layout &L0 = Layouts[0];
  uint64_t Id;
  if (IsSample) {
    if (L0.IdPosInSample < 0 || Rec.size() < size_t(8 + 8 * (L0.IdPosInSample + 1)))
      return nullptr;
    Id = support::endian::read64le(Rec.data() + 8 + 8 * L0.IdPosInSample);
  } else {
    if (L0.IdPosFromEnd < 0 || Rec.size() < size_t(8 + 8 * L0.IdPosFromEnd))
      return nullptr;
    Id = support::endian::read64le(Rec.data() + Rec.size() -
                                   8 * L0.IdPosFromEnd);
  }
  // Records perf synthesizes itself (the kernel's and pre-existing
  // processes' MMAPs, COMMs, FORKs) carry id 0: perf decodes them with the
  // first event's layout (evlist__event2evsel), and so do we.
  if (Id == 0)
    return &Layouts[0];
  int A = Info.attrForId(Id);
  return A < 0 ? nullptr : &Layouts[A];
}

void PerfReader::Impl::trailer(ArrayRef<uint8_t> Rec, SampleId &Id,
                               size_t &BodyEnd) {
  BodyEnd = Rec.size();
  const Layout *L = layoutFor(Rec, false);
  if (!L || !L->TrailerSize || Rec.size() < 8 + L->TrailerSize)
    return;
  BodyEnd = Rec.size() - L->TrailerSize;
  decodeTrailer(Rec.drop_front(BodyEnd), *L, Id);
}

Error PerfReader::Impl::addAttr(ArrayRef<uint8_t> AttrBytes,
                                ArrayRef<ulittle64> Ids,
                                const InputLocation &L) {
  EventAttr A;
  std::string Why;
  if (!parseAttr(AttrBytes, A, Why))
    return inputError(L, Why);
  for (uint64_t Id : Ids)
    A.Ids.push_back(Id);
  if (!Info.Attrs.empty() && A.sampleIdAll() != Info.Attrs[0].sampleIdAll())
    return inputError(L, "events disagree on sample_id_all; perf cannot "
                         "write such a file");
  Info.Attrs.push_back(std::move(A));
  Layouts.push_back(makeLayout(Info.Attrs.back()));
  Info.indexIds();
  return Error::success();
}

Error PerfReader::Impl::readFileHeader(ArrayRef<uint8_t> H) {
  auto rd = [&](size_t O) { return support::endian::read64le(H.data() + O); };
  uint64_t HdrSize = rd(8), AttrSize = rd(16);
  uint64_t AttrsOff = rd(24), AttrsSize = rd(32);
  Info.DataOffset = rd(40);
  Info.DataSize = rd(48);
  const uint64_t FileSize = Src->size();
  if (HdrSize < FileHeaderSize)
    return inputError(loc(8), formatv("header size {0} is smaller than the "
                                      "{1}-byte perf_file_header",
                                      HdrSize, FileHeaderSize));
  auto checkSection = [&](uint64_t Off, uint64_t Size, const char *What,
                          uint64_t FieldOff) -> Error {
    if (Off > FileSize || Size > FileSize - Off)
      return inputError(
          loc(FieldOff),
          formatv("{0} section [{1:x}, +{2:x}) lies outside the {3}-byte file "
                  "(truncated?)",
                  What, Off, Size, FileSize));
    return Error::success();
  };
  if (Error E = checkSection(AttrsOff, AttrsSize, "attrs", 24))
    return E;
  if (Error E = checkSection(Info.DataOffset, Info.DataSize, "data", 40))
    return E;
  if (AttrSize < AttrSizeVer0 + 16 || AttrSize > (1 << 16))
    return inputError(loc(16), formatv("attr_size {0} is not a plausible "
                                       "perf_event_attr + ids size",
                                       AttrSize));
  if (AttrsSize % AttrSize)
    return inputError(loc(32), formatv("attrs section of {0} bytes is not a "
                                       "multiple of attr_size {1}",
                                       AttrsSize, AttrSize));
  // Attrs: { perf_event_attr attr; perf_file_section ids; }[]
  std::vector<uint8_t> Attrs(AttrsSize);
  Expected<size_t> Got = Src->readAt(Attrs.data(), AttrsSize, AttrsOff);
  if (!Got)
    return Got.takeError();
  for (uint64_t I = 0; I < AttrsSize / AttrSize; ++I) {
    uint64_t Base = I * AttrSize;
    ArrayRef<uint8_t> Entry(Attrs.data() + Base, AttrSize);
    uint64_t IdsOff = support::endian::read64le(Entry.data() + AttrSize - 16);
    uint64_t IdsSize = support::endian::read64le(Entry.data() + AttrSize - 8);
    InputLocation L = loc(AttrsOff + Base);
    if (IdsOff > FileSize || IdsSize > FileSize - IdsOff || IdsSize % 8)
      return inputError(L, formatv("attr #{0}: ids section [{1:x}, +{2:x}) "
                                   "lies outside the file",
                                   I, IdsOff, IdsSize));
    std::vector<ulittle64> Ids(IdsSize / 8);
    if (IdsSize) {
      Expected<size_t> G = Src->readAt(reinterpret_cast<uint8_t *>(Ids.data()),
                                       IdsSize, IdsOff);
      if (!G)
        return G.takeError();
    }
    if (Error E = addAttr(Entry.drop_back(16), Ids, L))
      return E;
  }
  if (Info.Attrs.empty())
    return inputError(loc(24), "the file has no events (empty attrs section)");
  // Features: one perf_file_section per set bit, after the data section.
  for (unsigned W = 0; W < 4; ++W) {
    uint64_t Bits = rd(72 + 8 * W);
    for (unsigned B = 0; B < 64; ++B)
      if (Bits >> B & 1)
        Info.Features.set(W * 64 + B);
  }
  // Features are optional facts about the recording: a damaged one is
  // skipped with a warning and the others are still read (perf stops at
  // the first one its reader refuses and reads the data all the same).
  uint64_t TableOff = Info.DataOffset + Info.DataSize;
  unsigned Slot = 0;
  for (unsigned Bit = 0; Bit < HEADER_FEAT_BITS; ++Bit) {
    if (!Info.Features.test(Bit))
      continue;
    uint8_t Sec[16];
    uint64_t SecOff = TableOff + 16 * Slot++;
    Expected<size_t> G = Src->readAt(Sec, 16, SecOff);
    if (!G)
      return G.takeError();
    if (*G != 16) {
      warn(loc(SecOff), formatv("feature table entry for feature {0} lies "
                                "past the end of the file (truncated?); "
                                "features from here on are ignored",
                                Bit));
      break;
    }
    uint64_t Off = support::endian::read64le(Sec),
             Size = support::endian::read64le(Sec + 8);
    if (Off > FileSize || Size > FileSize - Off) {
      warn(loc(SecOff), formatv("feature {0} section [{1:x}, +{2:x}) lies "
                                "outside the {3}-byte file; feature ignored",
                                Bit, Off, Size, FileSize));
      continue;
    }
    // Only features we decode are read; their size is bounded by the file.
    if (Bit == HEADER_TRACING_DATA || Bit > HEADER_PMU_CAPS)
      continue;
    std::vector<uint8_t> Data(Size);
    G = Src->readAt(Data.data(), Size, Off);
    if (!G)
      return G.takeError();
    std::string Why;
    if (!parseFeature(Bit, Data, Info, Why))
      warn(loc(Off), Why + "; feature ignored");
  }
  return Src->seek(Info.DataOffset);
}

Error PerfReader::Impl::readHeader() {
  uint8_t H[FileHeaderSize];
  Expected<size_t> Got = Src->read(H, 16);
  if (!Got)
    return Got.takeError();
  if (*Got < 8)
    return inputError(loc(0), formatv("not a perf.data file: {0} bytes, "
                                      "expected at least a 16-byte header",
                                      *Got));
  uint64_t M = support::endian::read64le(H);
  if (M == Magic2Swapped)
    return inputError(loc(0), "big-endian perf.data is not supported");
  if (M != Magic2) {
    if (memcmp(H, "PERFFILE", 8) == 0)
      return inputError(loc(0), "perf.data version 1 (PERFFILE) is obsolete "
                                "and not supported");
    return inputError(loc(0), "not a perf.data file: expected magic "
                              "'PERFILE2'");
  }
  if (*Got < 16)
    return inputError(loc(8), "truncated header: expected its size field");
  uint64_t HdrSize = support::endian::read64le(H + 8);
  if (HdrSize == PipeHeaderSize) {
    Info.PipeMode = true;
    BufBase = 16;
    return Error::success();
  }
  if (!Src->seekable())
    return inputError(loc(8), formatv("header size {0} says file mode, but "
                                      "the input is a pipe; file-mode "
                                      "perf.data must be a regular file",
                                      HdrSize));
  Got = Src->readAt(H, FileHeaderSize, 0);
  if (!Got)
    return Got.takeError();
  if (*Got < FileHeaderSize)
    return inputError(loc(*Got), formatv("truncated header: {0} bytes, "
                                         "expected {1}",
                                         *Got, FileHeaderSize));
  Info.FileSize = Src->size();
  if (Error E = readFileHeader(ArrayRef<uint8_t>(H, FileHeaderSize)))
    return E;
  BufBase = Info.DataOffset;
  DataEnd = Info.DataOffset + Info.DataSize;
  return Error::success();
}

void PerfReader::Impl::leaveWindow() {
  // A fresh window costs a page fault every 4 KB. A spare taken leaves the
  // list, so that it is not listed twice when it goes back: a window listed
  // twice never looked free again, and jq's 78 MB recording of bench/pgo
  // made 32 fresh 1 MB windows for the 8 it holds at most (1,300 page
  // faults and 5-10% of the CPU more).
  std::shared_ptr<WindowBytes> New;
  for (auto &S : Spare)
    if (S.use_count() == 1 && S->size() == Win->size()) {
      New = std::move(S);
      S = std::move(Spare.back());
      Spare.pop_back();
      break;
    }
  if (!New)
    New = std::make_shared<WindowBytes>(Win->size());
  memcpy(New->data(), Win->data() + Pos, End - Pos);
  if (Spare.size() < MaxSpareWindows)
    Spare.push_back(std::move(Win));
  Win = std::move(New);
}

// Makes at least Need bytes available at Buf[Pos]; fewer only at the end of
// the input or of the data section.
Error PerfReader::Impl::fill(size_t Need) {
  if (End - Pos >= Need || Eof)
    return Error::success();
  if (Pos) {
    // A window that handlers hold records of is left to them.
    if (Win.use_count() > 1)
      leaveWindow();
    else
      memmove(Win->data(), Win->data() + Pos, End - Pos);
    BufBase += Pos;
    End -= Pos;
    Pos = 0;
  }
  if (buf().size() < Need)
    buf().resize(Need);
  while (End < Need && !Eof) {
    size_t Want = buf().size() - End;
    uint64_t Limit = DataEnd - (BufBase + End);
    if (Want > Limit)
      Want = Limit;
    if (!Want) {
      Eof = true;
      break;
    }
    Expected<size_t> Got = Src->read(buf().data() + End, Want);
    if (!Got)
      return Got.takeError();
    if (*Got == 0)
      Eof = true;
    End += *Got;
  }
  return Error::success();
}

Error PerfReader::Impl::skipBytes(uint64_t N, const InputLocation &L) {
  uint64_t InBuf = std::min<uint64_t>(N, End - Pos);
  Pos += InBuf;
  N -= InBuf;
  if (!N)
    return Error::success();
  // In pipe mode a payload cut by the end of the stream is the stream's
  // tail, like a cut record (see run()).
  auto cutTail = [&](uint64_t Missing) {
    warn(L, formatv("the stream ends inside the payload that follows the "
                    "last record ({0} bytes missing); ignored",
                    Missing));
    Pos = End;
    Eof = true;
    return Error::success();
  };
  if (Src->seekable()) {
    uint64_t Target = BufBase + Pos + N;
    if (Info.PipeMode && Target > Src->size())
      return cutTail(Target - Src->size());
    if (Target > DataEnd || Target > Src->size())
      return inputError(L, formatv("payload of {0} bytes runs past the end "
                                   "of the data",
                                   N));
    BufBase = Target;
    Pos = End = 0;
    if (Win.use_count() > 1) // a handler holds records of this window
      leaveWindow();
    return Src->seek(Target);
  }
  while (N) {
    // Payload bytes overwrite the window: leave a window that a handler
    // still holds records of.
    Pos = End = 0;
    if (Win.use_count() > 1)
      leaveWindow();
    if (Error E = fill(std::min<uint64_t>(N, buf().size())))
      return E;
    if (End == 0)
      return cutTail(N);
    size_t K = std::min<uint64_t>(N, End);
    Pos = K;
    N -= K;
  }
  return Error::success();
}

Error PerfReader::Impl::run(PerfEventHandler &H) {
  Win = std::make_shared<WindowBytes>(
      std::max<size_t>(Opts.WindowSize, 1 << 17));
  Pos = End = 0;
  while (true) {
    if (Error E = fill(8))
      return E;
    if (End - Pos == 0)
      break;
    uint64_t Off = consumed();
    // A pipe has no data size: a stream that ends inside its last record
    // (a writer stopped mid-record, or stray bytes appended) keeps the
    // records before it, as perf does. In file mode the header's data size
    // says where the records end, so a record running past it is damage.
    if (End - Pos < 8) {
      if (!Info.PipeMode)
        return inputError(loc(Off, RecordIndex),
                          formatv("truncated record header: {0} bytes "
                                  "remain, expected 8",
                                  End - Pos));
      warn(loc(Off, RecordIndex),
           formatv("{0} trailing byte{1} after the last record, too few for "
                   "a record header (8 bytes); ignored",
                   End - Pos, End - Pos == 1 ? "" : "s"));
      Pos = End;
      break;
    }
    const uint8_t *P = buf().data() + Pos;
    RecordInfo R;
    R.Type = support::endian::read32le(P);
    R.Misc = support::endian::read16le(P + 4);
    R.Size = support::endian::read16le(P + 6);
    R.FileOffset = Off;
    R.Index = RecordIndex++;
    if (R.Size < 8)
      return inputError(loc(Off, R.Index, R.Type),
                        formatv("record size {0} is smaller than its 8-byte "
                                "header",
                                R.Size));
    if (Error E = fill(R.Size))
      return E;
    if (End - Pos < R.Size) {
      if (!Info.PipeMode)
        return inputError(loc(Off, R.Index, R.Type),
                          formatv("record claims {0} bytes, only {1} remain "
                                  "(truncated file?)",
                                  R.Size, End - Pos));
      warn(loc(Off, R.Index, R.Type),
           formatv("the stream ends inside the last record: it claims {0} "
                   "bytes, {1} remain; the partial record is ignored",
                   R.Size, End - Pos));
      Pos = End;
      break;
    }
    R.Bytes = ArrayRef<uint8_t>(buf().data() + Pos, R.Size);
    R.Window = &Win;
    Pos += R.Size;
    if (Error E = deliver(R, H))
      return E;
  }
  if (Error E = flushQueue(~0ULL, H))
    return E;
  if (ZLen) {
    return inputError(loc(consumed()),
                      formatv("compressed stream ends inside a record: {0} "
                              "decompressed bytes left over",
                              ZLen));
  }
  return Error::success();
}

StringRef recordTypeName(uint32_t T) {
  switch (T) {
  case PERF_RECORD_MMAP: return "MMAP";
  case PERF_RECORD_LOST: return "LOST";
  case PERF_RECORD_COMM: return "COMM";
  case PERF_RECORD_EXIT: return "EXIT";
  case PERF_RECORD_THROTTLE: return "THROTTLE";
  case PERF_RECORD_UNTHROTTLE: return "UNTHROTTLE";
  case PERF_RECORD_FORK: return "FORK";
  case PERF_RECORD_READ: return "READ";
  case PERF_RECORD_SAMPLE: return "SAMPLE";
  case PERF_RECORD_MMAP2: return "MMAP2";
  case PERF_RECORD_AUX: return "AUX";
  case PERF_RECORD_ITRACE_START: return "ITRACE_START";
  case PERF_RECORD_LOST_SAMPLES: return "LOST_SAMPLES";
  case PERF_RECORD_SWITCH: return "SWITCH";
  case PERF_RECORD_SWITCH_CPU_WIDE: return "SWITCH_CPU_WIDE";
  case PERF_RECORD_NAMESPACES: return "NAMESPACES";
  case PERF_RECORD_KSYMBOL: return "KSYMBOL";
  case PERF_RECORD_BPF_EVENT: return "BPF_EVENT";
  case PERF_RECORD_CGROUP: return "CGROUP";
  case PERF_RECORD_TEXT_POKE: return "TEXT_POKE";
  case PERF_RECORD_AUX_OUTPUT_HW_ID: return "AUX_OUTPUT_HW_ID";
  case PERF_RECORD_HEADER_ATTR: return "ATTR";
  case PERF_RECORD_HEADER_EVENT_TYPE: return "EVENT_TYPE";
  case PERF_RECORD_HEADER_TRACING_DATA: return "TRACING_DATA";
  case PERF_RECORD_HEADER_BUILD_ID: return "BUILD_ID";
  case PERF_RECORD_FINISHED_ROUND: return "FINISHED_ROUND";
  case PERF_RECORD_ID_INDEX: return "ID_INDEX";
  case PERF_RECORD_AUXTRACE_INFO: return "AUXTRACE_INFO";
  case PERF_RECORD_AUXTRACE: return "AUXTRACE";
  case PERF_RECORD_AUXTRACE_ERROR: return "AUXTRACE_ERROR";
  case PERF_RECORD_THREAD_MAP: return "THREAD_MAP";
  case PERF_RECORD_CPU_MAP: return "CPU_MAP";
  case PERF_RECORD_STAT_CONFIG: return "STAT_CONFIG";
  case PERF_RECORD_STAT: return "STAT";
  case PERF_RECORD_STAT_ROUND: return "STAT_ROUND";
  case PERF_RECORD_EVENT_UPDATE: return "EVENT_UPDATE";
  case PERF_RECORD_TIME_CONV: return "TIME_CONV";
  case PERF_RECORD_HEADER_FEATURE: return "FEATURE";
  case PERF_RECORD_COMPRESSED: return "COMPRESSED";
  case PERF_RECORD_FINISHED_INIT: return "FINISHED_INIT";
  case PERF_RECORD_COMPRESSED2: return "COMPRESSED2";
  case PERF_RECORD_BPF_METADATA: return "BPF_METADATA";
  default: return "";
  }
}

StringRef branchTypeName(unsigned T) {
  static const char *const Names[] = {
      "",        "COND",     "UNCOND", "IND",      "CALL",   "IND_CALL",
      "RET",     "SYSCALL",  "SYSRET", "COND_CALL", "COND_RET", "ERET",
      "IRQ",     "SERROR",   "NO_TX",  "EXTEND_ABI"};
  return T < 16 ? Names[T] : "";
}

PerfReader::PerfReader(std::unique_ptr<Impl> I) : I(std::move(I)) {}
PerfReader::~PerfReader() = default;

static Expected<std::unique_ptr<PerfReader>>
openSource(std::unique_ptr<ByteSource> Src, PerfReaderOptions Opts) {
  auto I = std::make_unique<PerfReader::Impl>();
  I->Src = std::move(Src);
  I->Opts = Opts;
  if (Error E = I->readHeader())
    return std::move(E);
  return std::unique_ptr<PerfReader>(new PerfReader(std::move(I)));
}

Expected<std::unique_ptr<PerfReader>> PerfReader::open(StringRef Path,
                                                       PerfReaderOptions Opts) {
  Expected<std::unique_ptr<ByteSource>> Src = ByteSource::openFile(Path);
  if (!Src)
    return Src.takeError();
  return openSource(std::move(*Src), Opts);
}

Expected<std::unique_ptr<PerfReader>>
PerfReader::openBuffer(ArrayRef<uint8_t> Bytes, StringRef Name,
                       PerfReaderOptions Opts) {
  return openSource(ByteSource::fromBuffer(Bytes, Name), Opts);
}

EventSource::~EventSource() = default;

const PerfFileInfo &PerfReader::info() const { return I->Info; }
StringRef PerfReader::formatName() const {
  return I->Info.PipeMode ? "perf.data (pipe mode)" : "perf.data";
}
uint64_t PerfReader::unknownIdSamples() const { return I->UnknownIdSamples; }
ArrayRef<std::string> PerfReader::warnings() const { return I->Warnings; }

/// An input without the perf.data magic is read as `perf script` text, unless
/// its first bytes are not text (control characters other than tab, CR and
/// LF): then it is neither, and the error shows what it starts with.
static Error checkTextStart(ArrayRef<uint8_t> Start, StringRef Name) {
  InputLocation Loc;
  Loc.File = Name.str();
  if (Start.empty())
    return inputError(Loc, "the file is empty (expected a perf.data file or "
                           "`perf script` text)");
  bool Text = llvm::all_of(Start, [](uint8_t C) {
    return C >= 0x20 ? C != 0x7f : C == '\t' || C == '\n' || C == '\r';
  });
  if (Text)
    return Error::success();
  std::string Hex;
  for (uint8_t C : Start)
    Hex += formatv("{0}{1:x-2}", Hex.empty() ? "" : " ", C).str();
  StringRef Hint = Start.size() >= 4 && memcmp(Start.data(), "\x7f" "ELF", 4) == 0
                       ? "; this is an ELF file: give binaries with --binary"
                       : "";
  Loc.Offset = 0;
  return inputError(Loc, formatv("not a perf.data file (expected magic "
                                 "'PERFILE2', found {0}) nor `perf script` "
                                 "text{1}",
                                 Hex, Hint));
}

Expected<std::unique_ptr<EventSource>>
openEventSource(StringRef Path, PerfReaderOptions Opts) {
  Expected<std::unique_ptr<ByteSource>> Src = ByteSource::openFile(Path);
  if (!Src)
    return Src.takeError();
  uint8_t Magic[8];
  size_t Got;
  if ((*Src)->seekable()) {
    Expected<size_t> G = (*Src)->readAt(Magic, 8, 0);
    if (!G)
      return G.takeError();
    Got = *G;
  } else {
    Expected<size_t> G = (*Src)->read(Magic, 8);
    if (!G)
      return G.takeError();
    Got = *G;
    *Src = ByteSource::withPrefix(std::move(*Src),
                                  ArrayRef<uint8_t>(Magic, Got));
  }
  if (hasPerfMagic(ArrayRef<uint8_t>(Magic, Got)) ||
      (Got == 8 && memcmp(Magic, "PERFFILE", 8) == 0)) {
    Expected<std::unique_ptr<PerfReader>> R =
        openSource(std::move(*Src), Opts);
    if (!R)
      return R.takeError();
    return std::unique_ptr<EventSource>(std::move(*R));
  }
  if (Error E = checkTextStart(ArrayRef<uint8_t>(Magic, Got), Path))
    return std::move(E);
  return openScriptSource(std::move(*Src));
}

Expected<std::unique_ptr<EventSource>>
openEventSourceBuffer(ArrayRef<uint8_t> Bytes, StringRef Name) {
  ArrayRef<uint8_t> Magic = Bytes.take_front(8);
  std::unique_ptr<ByteSource> Src = ByteSource::fromBuffer(Bytes, Name);
  if (hasPerfMagic(Magic) ||
      (Magic.size() == 8 && memcmp(Magic.data(), "PERFFILE", 8) == 0)) {
    Expected<std::unique_ptr<PerfReader>> R = openSource(std::move(Src), {});
    if (!R)
      return R.takeError();
    return std::unique_ptr<EventSource>(std::move(*R));
  }
  if (Error E = checkTextStart(Magic, Name))
    return std::move(E);
  return openScriptSource(std::move(Src));
}

Error PerfReader::run(PerfEventHandler &H) { return I->run(H); }
uint64_t PerfReader::bytesRead() const { return I->consumed(); }

} // namespace lbr2prof
