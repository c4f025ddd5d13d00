//===- Layout.cpp - file and pipe layout, features, zstd ------------------===//
//
// File mode, byte for byte what perf record produces:
//   [perf_file_header 104 B][ids of attr 0][ids of attr 1]...
//   [attrs: {perf_event_attr, perf_file_section ids}...][data records]
//   [perf_file_section per set feature bit, ascending][feature bodies]
// Pipe mode:
//   [magic, size=16][HEADER_ATTR...][HEADER_FEATURE..., LAST_FEATURE]
//   [HEADER_BUILD_ID...][FINISHED_INIT][data records]
//
// Compression follows perf's record -z: one zstd stream per group, each
// chunk compressed with ZSTD_compressStream then ZSTD_flushStream, and the
// chunk's output stored whole in one PERF_RECORD_COMPRESSED. Chunks cut at
// byte counts, so a decompressed record may straddle two COMPRESSED
// records, which readers must handle.
//
//===----------------------------------------------------------------------===//
#include "Layout.h"

#include "ByteWriter.h"
#include "lbr2prof/PerfData/PerfABI.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <zstd.h>

namespace lbr2prof {
namespace t2p {

using namespace perfabi;

namespace {

/// perf aligns feature strings and build-id file names to 64 bytes.
constexpr size_t NameAlign = 64;
/// Largest chunk of records fed to zstd at once: its compressed form (at
/// most ZSTD_compressBound(60000) ~ 60.3 KB) always fits a COMPRESSED
/// record's u16 size.
constexpr size_t MaxChunk = 60000;
/// perf record's default data mmap: 128 pages + 1 header page.
constexpr uint32_t DefaultMmapLen = 129 * 4096;

void featString(ByteWriter &W, const std::string &S) {
  size_t Len = (S.size() + 1 + NameAlign - 1) / NameAlign * NameAlign;
  W.u32((uint32_t)Len);
  W.bytes((const uint8_t *)S.data(), S.size());
  W.zeros(Len - S.size());
}

std::vector<uint8_t> attrBytes(const Description &Desc, const AttrDesc &A) {
  std::vector<uint8_t> Img(A.Image.begin(), A.Image.begin() + Desc.AttrSize);
  for (unsigned I = 0; I < 4; ++I)
    Img[4 + I] = (uint8_t)(Desc.AttrSize >> (8 * I));
  return Img;
}

/// build_id_event {header; pid; build_id[20], size, pad[3]; filename}.
void buildIdEvent(ByteWriter &W, const BuildIdDesc &B, uint32_t Type) {
  size_t NameLen = (B.File.size() + 1 + NameAlign - 1) / NameAlign * NameAlign;
  W.u32(Type);
  W.u16(B.Misc);
  W.u16((uint16_t)(36 + NameLen));
  W.u32((uint32_t)B.Pid);
  std::vector<uint8_t> Id = B.Id;
  Id.resize(20, 0);
  W.bytes(Id);
  W.u8((B.Misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? (uint8_t)B.Id.size() : 0);
  W.zeros(3);
  W.bytes((const uint8_t *)B.File.data(), B.File.size());
  W.zeros(NameLen - B.File.size());
}

struct CompStats {
  uint64_t In = 0, Out = 0;
  size_t LargestChunk = 0;
  int Level = 0;
  bool Any = false;
};

/// Compresses the records \p Items (one group) into COMPRESSED records.
bool compressGroup(const CompressDesc &G, ZSTD_CStream *CS,
                   const std::vector<const DataItem *> &Items, ByteWriter &W,
                   CompStats &St, Diag &D) {
  // Concatenate, then cut into chunks.
  std::vector<uint8_t> In;
  std::vector<size_t> Cuts; // chunk end offsets
  size_t Limit =
      G.SplitBytes ? std::min<size_t>(G.SplitBytes, MaxChunk) : MaxChunk;
  size_t ChunkStart = 0;
  unsigned RecsInChunk = 0;
  for (const DataItem *It : Items) {
    In.insert(In.end(), It->Bytes.begin(), It->Bytes.end());
    while (In.size() - ChunkStart >= Limit) {
      ChunkStart += Limit;
      Cuts.push_back(ChunkStart);
      RecsInChunk = 0;
    }
    ++RecsInChunk;
    if (G.RecordsPerChunk && RecsInChunk >= G.RecordsPerChunk &&
        In.size() > ChunkStart) {
      ChunkStart = In.size();
      Cuts.push_back(ChunkStart);
      RecsInChunk = 0;
    }
  }
  if (In.size() > ChunkStart)
    Cuts.push_back(In.size());
  if (Cuts.empty())
    return true;

  size_t Begin = 0;
  bool Ok = true;
  for (size_t C = 0; C < Cuts.size() && Ok; ++C) {
    size_t End = Cuts[C];
    std::vector<uint8_t> Buf(ZSTD_compressBound(End - Begin) + 1024);
    ZSTD_outBuffer Out = {Buf.data(), Buf.size(), 0};
    ZSTD_inBuffer InB = {In.data() + Begin, End - Begin, 0};
    while (InB.pos < InB.size && Ok) {
      size_t R = ZSTD_compressStream(CS, &Out, &InB);
      if (ZSTD_isError(R))
        Ok = D.error(G.Line, std::string("zstd: ") + ZSTD_getErrorName(R));
      else if (Out.pos == Out.size)
        Ok = D.error(G.Line, "zstd: output larger than the bound");
    }
    // The last chunk of a group ended by `compress off` also ends the
    // frame; otherwise flush, leaving the stream open as perf does.
    bool EndFrame = G.Closed && C + 1 == Cuts.size();
    while (Ok) {
      size_t R =
          EndFrame ? ZSTD_endStream(CS, &Out) : ZSTD_flushStream(CS, &Out);
      if (ZSTD_isError(R)) {
        Ok = D.error(G.Line, std::string("zstd: ") + ZSTD_getErrorName(R));
        break;
      }
      if (R == 0)
        break;
      if (Out.pos == Out.size)
        Ok = D.error(G.Line, "zstd: output larger than the bound");
    }
    if (!Ok)
      break;
    if (Out.pos + 8 > 0xffff) {
      Ok = D.error(G.Line, "a compressed chunk does not fit one "
                           "COMPRESSED record; lower split_bytes");
      break;
    }
    W.u32(PERF_RECORD_COMPRESSED);
    W.u16(0);
    W.u16((uint16_t)(Out.pos + 8));
    W.bytes(Buf.data(), Out.pos);
    St.In += End - Begin;
    St.Out += Out.pos;
    St.LargestChunk = std::max(St.LargestChunk, End - Begin);
    if (!St.Any)
      St.Level = G.Level;
    St.Any = true;
    Begin = End;
  }
  return Ok;
}

bool omitted(const Description &Desc, const char *Name) {
  return std::find(Desc.Omit.begin(), Desc.Omit.end(), Name) != Desc.Omit.end();
}

/// Feature bodies by feature bit (HEADER_BUILD_ID included).
bool featureBodies(const Description &Desc, const CompStats &St,
                   std::map<unsigned, std::vector<uint8_t>> &Feats, Diag &D) {
  const FeatureDesc &F = Desc.Features;
  auto Str = [&](unsigned Bit, const std::optional<std::string> &V,
                 const char *Def, const char *Name) {
    if (!V && (!Def || omitted(Desc, Name)))
      return;
    ByteWriter W;
    featString(W, V ? *V : std::string(Def));
    Feats[Bit] = std::move(W.Buf);
  };
  if (!F.BuildIds.empty()) {
    ByteWriter W;
    for (const BuildIdDesc &B : F.BuildIds)
      buildIdEvent(W, B, 0);
    Feats[HEADER_BUILD_ID] = std::move(W.Buf);
  }
  Str(HEADER_HOSTNAME, F.Hostname, "text2perfdata", "hostname");
  Str(HEADER_OSRELEASE, F.OsRelease, "6.1.0", "osrelease");
  Str(HEADER_VERSION, F.Version, "6.1", "version");
  Str(HEADER_ARCH, F.Arch, "x86_64", "arch");
  if (F.NrCpus || !omitted(Desc, "nrcpus")) {
    ByteWriter W;
    uint32_t Online = F.NrCpus ? F.NrCpus->first : 8;
    uint32_t Avail = F.NrCpus ? F.NrCpus->second : 8;
    W.u32(Avail); // perf stores nr_cpus_avail first, then online
    W.u32(Online);
    Feats[HEADER_NRCPUS] = std::move(W.Buf);
  }
  Str(HEADER_CPUDESC, F.CpuDesc, nullptr, "cpudesc");
  Str(HEADER_CPUID, F.CpuId, nullptr, "cpuid");
  if (F.TotalMem) {
    ByteWriter W;
    W.u64(*F.TotalMem);
    Feats[HEADER_TOTAL_MEM] = std::move(W.Buf);
  }
  if (F.Cmdline) {
    ByteWriter W;
    W.u32((uint32_t)F.Cmdline->size());
    for (const std::string &S : *F.Cmdline)
      featString(W, S);
    Feats[HEADER_CMDLINE] = std::move(W.Buf);
  }
  if (F.EventDesc && !omitted(Desc, "event_desc")) {
    ByteWriter W;
    W.u32((uint32_t)Desc.Attrs.size());
    W.u32(Desc.AttrSize);
    for (const AttrDesc &A : Desc.Attrs) {
      W.bytes(attrBytes(Desc, A));
      W.u32((uint32_t)A.Ids.size());
      featString(W, A.Name);
      for (uint64_t Id : A.Ids)
        W.u64(Id);
    }
    Feats[HEADER_EVENT_DESC] = std::move(W.Buf);
  }
  bool AnyBranch = false;
  for (const AttrDesc &A : Desc.Attrs)
    AnyBranch |= (A.SampleType & PERF_SAMPLE_BRANCH_STACK) != 0;
  if (F.BranchStack == 1 ||
      (F.BranchStack == -1 && AnyBranch && !omitted(Desc, "branch_stack")))
    Feats[HEADER_BRANCH_STACK] = {};
  if (F.SampleTime) {
    ByteWriter W;
    W.u64(F.SampleTime->first);
    W.u64(F.SampleTime->second);
    Feats[HEADER_SAMPLE_TIME] = std::move(W.Buf);
  }
  if (St.Any && !omitted(Desc, "compressed")) {
    uint32_t MmapLen = F.CompMmapLen ? *F.CompMmapLen : DefaultMmapLen;
    // perf decompresses each COMPRESSED record into mmap_len bytes (plus
    // the carried-over tail) and fails when a chunk does not fit.
    if (MmapLen < St.LargestChunk)
      return D.error(0, "compressed_mmap_len=" + std::to_string(MmapLen) +
                            " is smaller than a chunk (" +
                            std::to_string(St.LargestChunk) +
                            " bytes); perf could not decompress it");
    uint32_t Ratio =
        F.CompRatio
            ? *F.CompRatio
            : (uint32_t)std::lround((double)St.In /
                                    (double)std::max<uint64_t>(St.Out, 1));
    ByteWriter W;
    W.u32(1); // version
    W.u32(PERF_COMP_ZSTD);
    W.u32((uint32_t)St.Level);
    W.u32(Ratio);
    W.u32(MmapLen);
    Feats[HEADER_COMPRESSED] = std::move(W.Buf);
  }
  return true;
}

} // namespace

bool layoutPerfData(const Description &Desc, std::vector<uint8_t> &Out,
                    Diag &D) {
  // Data first: the COMPRESSED feature depends on it.
  ByteWriter Data;
  CompStats St;
  // One zstd stream per group, kept across the uncompressed records
  // (finished_round) that interrupt it.
  struct Streams {
    std::map<int, ZSTD_CStream *> ByGroup;
    ~Streams() {
      for (auto &KV : ByGroup)
        ZSTD_freeCStream(KV.second);
    }
  } CStreams;
  for (size_t I = 0; I < Desc.Data.size();) {
    const DataItem &It = Desc.Data[I];
    if (It.Group < 0) {
      Data.bytes(It.Bytes);
      ++I;
      continue;
    }
    std::vector<const DataItem *> Items;
    int G = It.Group;
    while (I < Desc.Data.size() && Desc.Data[I].Group == G)
      Items.push_back(&Desc.Data[I++]);
    // A group interrupted by an uncompressed record (finished_round)
    // continues the same zstd stream afterwards, as perf does; only the
    // last run of the group may end the frame.
    bool LastRun = true;
    for (size_t J = I; J < Desc.Data.size(); ++J)
      LastRun &= Desc.Data[J].Group != G;
    CompressDesc Params = Desc.Groups[G];
    Params.Closed = Params.Closed && LastRun;
    ZSTD_CStream *&CS = CStreams.ByGroup[G];
    if (!CS) {
      CS = ZSTD_createCStream();
      if (!CS || ZSTD_isError(ZSTD_initCStream(CS, Params.Level)))
        return D.error(Params.Line, "zstd: cannot create a stream");
    }
    if (!compressGroup(Params, CS, Items, Data, St, D))
      return false;
  }

  std::map<unsigned, std::vector<uint8_t>> Feats;
  if (!featureBodies(Desc, St, Feats, D))
    return false;

  ByteWriter W;
  if (Desc.Pipe) {
    W.u64(Magic2);
    W.u64(PipeHeaderSize);
    for (const AttrDesc &A : Desc.Attrs) {
      size_t Size = 8 + Desc.AttrSize + 8 * A.Ids.size();
      if (Size > 0xffff)
        return D.error(A.Line, "too many ids for one HEADER_ATTR record");
      W.u32(PERF_RECORD_HEADER_ATTR);
      W.u16(0);
      W.u16((uint16_t)Size);
      W.bytes(attrBytes(Desc, A));
      for (uint64_t Id : A.Ids)
        W.u64(Id);
    }
    // perf synthesizes every feature except BUILD_ID and the empty ones
    // (BRANCH_STACK, AUXTRACE, STAT, CACHE...); build-ids travel as
    // HEADER_BUILD_ID records instead.
    for (const auto &KV : Feats) {
      if (KV.first == HEADER_BUILD_ID || KV.first == HEADER_BRANCH_STACK)
        continue;
      size_t Size = 16 + KV.second.size();
      if (Size > 0xffff)
        return D.error(0, "feature " + std::to_string(KV.first) +
                              " too large for a HEADER_FEATURE record");
      W.u32(PERF_RECORD_HEADER_FEATURE);
      W.u16(0);
      W.u16((uint16_t)Size);
      W.u64(KV.first);
      W.bytes(KV.second);
    }
    // perf ends the features with an empty HEADER_LAST_FEATURE record;
    // perf report --header-only prints the header when it sees it.
    W.u32(PERF_RECORD_HEADER_FEATURE);
    W.u16(0);
    W.u16(16);
    W.u64(HEADER_LAST_FEATURE);
    for (const BuildIdDesc &B : Desc.Features.BuildIds)
      buildIdEvent(W, B, PERF_RECORD_HEADER_BUILD_ID);
    if (Desc.FinishedInit) {
      W.u32(PERF_RECORD_FINISHED_INIT);
      W.u16(0);
      W.u16(8);
    }
    W.bytes(Data.Buf);
    Out = std::move(W.Buf);
    return true;
  }

  // File mode.
  uint64_t IdsOff = FileHeaderSize;
  uint64_t NumIds = 0;
  for (const AttrDesc &A : Desc.Attrs)
    NumIds += A.Ids.size();
  uint64_t AttrEntry = Desc.AttrSize + 16;
  uint64_t AttrsOff = IdsOff + 8 * NumIds;
  uint64_t AttrsSize = AttrEntry * Desc.Attrs.size();
  uint64_t DataOff = AttrsOff + AttrsSize;
  uint64_t DataSize = Data.size();
  uint64_t FeatOff = DataOff + DataSize;

  W.u64(Magic2);
  W.u64(FileHeaderSize);
  W.u64(AttrEntry);
  W.u64(AttrsOff);
  W.u64(AttrsSize);
  W.u64(DataOff);
  W.u64(DataSize);
  W.u64(0); // event_types: unused since perf 3.x
  W.u64(0);
  uint64_t Bits[4] = {0, 0, 0, 0};
  for (const auto &KV : Feats)
    Bits[KV.first / 64] |= 1ULL << (KV.first % 64);
  for (uint64_t B : Bits)
    W.u64(B);
  for (const AttrDesc &A : Desc.Attrs)
    for (uint64_t Id : A.Ids)
      W.u64(Id);
  uint64_t NextIds = IdsOff;
  for (const AttrDesc &A : Desc.Attrs) {
    W.bytes(attrBytes(Desc, A));
    W.u64(NextIds);
    W.u64(8 * A.Ids.size());
    NextIds += 8 * A.Ids.size();
  }
  W.bytes(Data.Buf);
  uint64_t Body = FeatOff + 16 * Feats.size();
  for (const auto &KV : Feats) {
    W.u64(Body);
    W.u64(KV.second.size());
    Body += KV.second.size();
  }
  for (const auto &KV : Feats)
    W.bytes(KV.second);
  Out = std::move(W.Buf);
  return true;
}

} // namespace t2p
} // namespace lbr2prof
