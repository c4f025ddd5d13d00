//===- PerfReaderTest.cpp - perf.data reader on synthetic buffers ---------===//
//
// Builds perf.data images in memory, byte by byte from the ABI, and checks
// what the reader decodes from them: sample fields, branch flags, several
// events, pipe mode, zstd chunks that split records, time ordering, and the
// errors for truncated and lying inputs.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Support/Error.h"
#include "gtest/gtest.h"
#include <cstring>
#include <zstd.h>

using namespace lbr2prof;
using namespace lbr2prof::perfabi;
using namespace llvm;

namespace {

struct Bytes {
  std::vector<uint8_t> B;
  Bytes &u64(uint64_t V) {
    for (int I = 0; I < 8; ++I)
      B.push_back(uint8_t(V >> (8 * I)));
    return *this;
  }
  Bytes &u32(uint32_t V) {
    for (int I = 0; I < 4; ++I)
      B.push_back(uint8_t(V >> (8 * I)));
    return *this;
  }
  Bytes &u16(uint16_t V) {
    B.push_back(uint8_t(V));
    B.push_back(uint8_t(V >> 8));
    return *this;
  }
  Bytes &str(StringRef S, size_t Pad) {
    B.insert(B.end(), S.begin(), S.end());
    B.resize(B.size() + Pad - S.size(), 0);
    return *this;
  }
  Bytes &append(const Bytes &O) {
    B.insert(B.end(), O.B.begin(), O.B.end());
    return *this;
  }
  size_t size() const { return B.size(); }
};

/// perf_event_attr (VER5, 112 bytes).
Bytes attr(uint64_t SampleType, uint64_t BranchType, bool IdAll) {
  Bytes A;
  A.u32(0).u32(112).u64(0).u64(1000).u64(SampleType).u64(0);
  A.u64(IdAll ? 1ULL << attrbits::SampleIdAll : 0);
  A.u32(0).u32(0).u64(0).u64(0).u64(BranchType);
  A.B.resize(112, 0);
  return A;
}

Bytes record(uint32_t Type, uint16_t Misc, const Bytes &Body) {
  Bytes R;
  R.u32(Type).u16(Misc).u16(uint16_t(8 + Body.size())).append(Body);
  return R;
}

/// A file-mode image with the given attrs (each with its ids) and data.
Bytes fileImage(const std::vector<std::pair<Bytes, std::vector<uint64_t>>> &Attrs,
                const Bytes &Data) {
  const uint64_t AttrSize = 112 + 16;
  uint64_t AttrsOff = 104;
  uint64_t IdsOff = AttrsOff + AttrSize * Attrs.size();
  uint64_t NIds = 0;
  for (auto &A : Attrs)
    NIds += A.second.size();
  uint64_t DataOff = IdsOff + 8 * NIds;
  Bytes F;
  F.str("PERFILE2", 8).u64(104).u64(AttrSize);
  F.u64(AttrsOff).u64(AttrSize * Attrs.size());
  F.u64(DataOff).u64(Data.size());
  F.u64(0).u64(0);
  F.u64(0).u64(0).u64(0).u64(0); // no features
  uint64_t Next = IdsOff;
  for (auto &A : Attrs) {
    F.append(A.first).u64(Next).u64(8 * A.second.size());
    Next += 8 * A.second.size();
  }
  for (auto &A : Attrs)
    for (uint64_t Id : A.second)
      F.u64(Id);
  F.append(Data);
  return F;
}

uint64_t flags(bool Mispred, bool Pred, unsigned Cycles, unsigned Type) {
  return uint64_t(Mispred) | uint64_t(Pred) << 1 | uint64_t(Cycles) << 4 |
         uint64_t(Type) << 20;
}

/// Collects what the reader delivers.
struct Collector : PerfEventHandler {
  struct S {
    unsigned Attr;
    uint64_t Ip, Time;
    uint32_t Pid, Tid;
    std::vector<BranchEntry> Br;
    bool HasHwIdx;
    uint64_t HwIdx;
  };
  std::vector<S> Samples;
  std::vector<std::string> Mmaps;
  std::vector<uint32_t> Types;
  Error onRecord(const RecordInfo &R) override {
    Types.push_back(R.Type);
    return Error::success();
  }
  Error onSample(const Sample &X, const RecordInfo &) override {
    Samples.push_back({X.AttrIndex, X.Ip, X.Ident.Time, X.Ident.Pid,
                       X.Ident.Tid,
                       std::vector<BranchEntry>(X.Branches.begin(),
                                                X.Branches.end()),
                       X.HasHwIdx, X.HwIdx});
    return Error::success();
  }
  Error onMmap(const MmapEvent &E, const RecordInfo &) override {
    Mmaps.push_back((E.Filename + "@" + Twine::utohexstr(E.Addr) + "+" +
                     Twine::utohexstr(E.PgOff) + "/" + Twine(E.Ident.Time))
                        .str());
    return Error::success();
  }
};

std::string run(const Bytes &Image, Collector &C, bool Ordered = false) {
  PerfReaderOptions O;
  O.TimeOrdered = Ordered;
  O.WindowSize = 1 << 17;
  auto R = PerfReader::openBuffer(Image.B, "test.data", O);
  if (!R)
    return toString(R.takeError());
  if (Error E = (*R)->run(C))
    return toString(std::move(E));
  return "";
}

const uint64_t LbrType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                         PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;

Bytes lbrSample(uint64_t Ip, uint32_t Pid, uint64_t Time,
                const std::vector<std::array<uint64_t, 3>> &Entries,
                bool HwIdx = false) {
  Bytes S;
  S.u64(Ip).u32(Pid).u32(Pid + 1).u64(Time).u64(1000).u64(Entries.size());
  if (HwIdx)
    S.u64(7);
  for (auto &E : Entries)
    S.u64(E[0]).u64(E[1]).u64(E[2]);
  return record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, S);
}

TEST(PerfReader, DecodesBranchStackAndFlags) {
  Bytes Data = lbrSample(0x401010, 42, 100,
                         {{0x401000, 0x401100, flags(true, false, 7, PERF_BR_COND)},
                          {0x401200, 0x400f00, flags(false, true, 65535, PERF_BR_RET)}});
  Collector C;
  ASSERT_EQ(run(fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}}, Data), C), "");
  ASSERT_EQ(C.Samples.size(), 1u);
  auto &S = C.Samples[0];
  EXPECT_EQ(S.Ip, 0x401010u);
  EXPECT_EQ(S.Pid, 42u);
  EXPECT_EQ(S.Tid, 43u);
  EXPECT_EQ(S.Time, 100u);
  ASSERT_EQ(S.Br.size(), 2u);
  EXPECT_EQ(S.Br[0].from(), 0x401000u);
  EXPECT_EQ(S.Br[0].to(), 0x401100u);
  EXPECT_TRUE(S.Br[0].mispred());
  EXPECT_FALSE(S.Br[0].predicted());
  EXPECT_EQ(S.Br[0].cycles(), 7u);
  EXPECT_EQ(S.Br[0].type(), unsigned(PERF_BR_COND));
  EXPECT_TRUE(S.Br[1].predicted());
  EXPECT_EQ(S.Br[1].cycles(), 65535u);
  EXPECT_EQ(S.Br[1].type(), unsigned(PERF_BR_RET));
  EXPECT_FALSE(S.HasHwIdx);
}

TEST(PerfReader, HwIndexShiftsEntries) {
  Bytes Data = lbrSample(1, 1, 1, {{0x10, 0x20, 0}}, /*HwIdx=*/true);
  Collector C;
  ASSERT_EQ(run(fileImage({{attr(LbrType,
                                 PERF_SAMPLE_BRANCH_ANY |
                                     PERF_SAMPLE_BRANCH_HW_INDEX,
                                 false),
                            {}}},
                          Data),
                C),
            "");
  ASSERT_EQ(C.Samples.size(), 1u);
  EXPECT_TRUE(C.Samples[0].HasHwIdx);
  EXPECT_EQ(C.Samples[0].HwIdx, 7u);
  EXPECT_EQ(C.Samples[0].Br[0].from(), 0x10u);
}

TEST(PerfReader, BranchCountBeyondRecordIsAnError) {
  Bytes S;
  S.u64(1).u32(1).u32(1).u64(1).u64(1).u64(4096);
  S.u64(0).u64(0).u64(0);
  Collector C;
  std::string Err = run(
      fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}},
                record(PERF_RECORD_SAMPLE, 2, S)),
      C);
  EXPECT_NE(Err.find("test.data: offset 0x"), std::string::npos) << Err;
  EXPECT_NE(Err.find("(record #0 SAMPLE)"), std::string::npos) << Err;
  EXPECT_NE(Err.find("branch stack claims 4096 entries, 24 bytes remain"),
            std::string::npos)
      << Err;
}

TEST(PerfReader, TruncatedRecordIsAnError) {
  Bytes Data = lbrSample(1, 1, 1, {{0x10, 0x20, 0}});
  Bytes Image = fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}}, Data);
  // Keep the header's data size, cut the file: the data section lies.
  Image.B.resize(Image.B.size() - 5);
  Collector C;
  std::string Err = run(Image, C);
  EXPECT_NE(Err.find("data section"), std::string::npos) << Err;
}

TEST(PerfReader, SeveralEventsMatchedById) {
  uint64_t T = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  uint64_t T2 = T | PERF_SAMPLE_BRANCH_STACK;
  Bytes A, B;
  A.u64(11).u64(0xaaa).u32(5).u32(5);
  B.u64(22).u64(0xbbb).u32(6).u32(6).u64(1).u64(0x1).u64(0x2).u64(0);
  Bytes Data = record(PERF_RECORD_SAMPLE, 2, A).append(record(PERF_RECORD_SAMPLE, 2, B));
  Collector C;
  ASSERT_EQ(run(fileImage({{attr(T, 0, false), {11}},
                           {attr(T2, PERF_SAMPLE_BRANCH_ANY, false), {22}}},
                          Data),
                C),
            "");
  ASSERT_EQ(C.Samples.size(), 2u);
  EXPECT_EQ(C.Samples[0].Attr, 0u);
  EXPECT_EQ(C.Samples[0].Ip, 0xaaau);
  EXPECT_TRUE(C.Samples[0].Br.empty());
  EXPECT_EQ(C.Samples[1].Attr, 1u);
  ASSERT_EQ(C.Samples[1].Br.size(), 1u);
  EXPECT_EQ(C.Samples[1].Br[0].to(), 0x2u);
}

Bytes mmap2(uint32_t Pid, uint64_t Addr, uint64_t Len, uint64_t PgOff,
            StringRef Name, uint64_t Time) {
  Bytes M;
  M.u32(Pid).u32(Pid).u64(Addr).u64(Len).u64(PgOff);
  M.u32(8).u32(1).u64(99).u64(0).u32(5).u32(2);
  M.str(Name, (Name.size() + 8) & ~size_t(7));
  M.u32(Pid).u32(Pid).u64(Time); // trailer: TID, TIME
  return record(PERF_RECORD_MMAP2, 2, M);
}

TEST(PerfReader, Mmap2WithTrailerAndTimeOrder) {
  uint64_t T = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  Bytes S1, S2;
  S1.u64(0x1).u32(9).u32(9).u64(300);
  S2.u64(0x2).u32(9).u32(9).u64(100);
  Bytes Data = mmap2(9, 0x400000, 0x1000, 0x1000, "/bin/app", 200);
  Data.append(record(PERF_RECORD_SAMPLE, 2, S1));
  Data.append(record(PERF_RECORD_SAMPLE, 2, S2));
  Data.append(record(PERF_RECORD_FINISHED_ROUND, 0, Bytes()));
  Bytes Image = fileImage({{attr(T, 0, true), {}}}, Data);
  Collector InFile, InTime;
  ASSERT_EQ(run(Image, InFile), "");
  ASSERT_EQ(InFile.Mmaps.size(), 1u);
  EXPECT_EQ(InFile.Mmaps[0], "/bin/app@400000+1000/200");
  ASSERT_EQ(InFile.Samples.size(), 2u);
  EXPECT_EQ(InFile.Samples[0].Ip, 1u);
  ASSERT_EQ(run(Image, InTime, /*Ordered=*/true), "");
  ASSERT_EQ(InTime.Samples.size(), 2u);
  EXPECT_EQ(InTime.Samples[0].Ip, 2u); // time 100 first
  EXPECT_EQ(InTime.Types.front(), uint32_t(PERF_RECORD_FINISHED_ROUND));
}

TEST(PerfReader, PipeModeWithHeaderAttr) {
  Bytes P;
  P.str("PERFILE2", 8).u64(16);
  Bytes AttrRec = attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false);
  AttrRec.u64(5); // one id
  P.append(record(PERF_RECORD_HEADER_ATTR, 0, AttrRec));
  P.append(lbrSample(0x77, 3, 1, {{0x1, 0x2, 0}, {0x3, 0x4, 0}}));
  Collector C;
  ASSERT_EQ(run(P, C), "");
  ASSERT_EQ(C.Samples.size(), 1u);
  EXPECT_EQ(C.Samples[0].Ip, 0x77u);
  EXPECT_EQ(C.Samples[0].Br.size(), 2u);
}

TEST(PerfReader, ZstdChunksMaySplitRecords) {
  // Three samples compressed as one stream, flushed into chunks at odd
  // byte counts so records straddle COMPRESSED records.
  Bytes Plain;
  for (int I = 0; I < 3; ++I)
    Plain.append(lbrSample(0x100 + I, 1, I, {{0x10, 0x20, 0}, {0x30, 0x40, 0}}));
  ZSTD_CStream *Z = ZSTD_createCStream();
  ZSTD_initCStream(Z, 1);
  Bytes Data;
  size_t Cuts[] = {13, 70, 150, Plain.size()};
  size_t From = 0;
  for (size_t Cut : Cuts) {
    std::vector<uint8_t> Out(ZSTD_compressBound(Cut - From) + 64);
    ZSTD_inBuffer In{Plain.B.data() + From, Cut - From, 0};
    ZSTD_outBuffer O{Out.data(), Out.size(), 0};
    while (In.pos < In.size)
      ZSTD_compressStream(Z, &O, &In);
    ZSTD_flushStream(Z, &O);
    Bytes Chunk;
    Chunk.B.assign(Out.begin(), Out.begin() + O.pos);
    Data.append(record(PERF_RECORD_COMPRESSED, 0, Chunk));
    From = Cut;
  }
  ZSTD_freeCStream(Z);
  Collector C;
  ASSERT_EQ(run(fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}}, Data), C), "");
  ASSERT_EQ(C.Samples.size(), 3u);
  for (int I = 0; I < 3; ++I) {
    EXPECT_EQ(C.Samples[I].Ip, uint64_t(0x100 + I));
    ASSERT_EQ(C.Samples[I].Br.size(), 2u);
    EXPECT_EQ(C.Samples[I].Br[1].to(), 0x40u);
  }
}

TEST(PerfReader, CorruptZstdIsAnError) {
  Bytes Junk;
  Junk.u64(0x1234567812345678ULL).u64(0);
  Collector C;
  std::string Err =
      run(fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}},
                    record(PERF_RECORD_COMPRESSED, 0, Junk)),
          C);
  EXPECT_NE(Err.find("corrupt zstd data"), std::string::npos) << Err;
  EXPECT_NE(Err.find("COMPRESSED"), std::string::npos) << Err;
}

TEST(PerfReader, NotPerfData) {
  std::vector<uint8_t> B(64, 'x');
  auto R = PerfReader::openBuffer(B, "junk.bin");
  ASSERT_FALSE(bool(R));
  std::string Err = toString(R.takeError());
  EXPECT_EQ(Err, "junk.bin: offset 0x0: not a perf.data file: expected magic "
                 "'PERFILE2'");
}

TEST(PerfReader, RecordSmallerThanHeader) {
  Bytes Bad;
  Bad.u32(PERF_RECORD_SAMPLE).u16(0).u16(4).u32(0);
  Collector C;
  std::string Err =
      run(fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}}, Bad),
          C);
  EXPECT_NE(Err.find("record size 4 is smaller than its 8-byte header"),
            std::string::npos)
      << Err;
}

/// Runs the reader over Image; returns its error ("" if none) and fills
/// Warnings with what it survived.
std::string runWarn(const Bytes &Image, Collector &C,
                    std::vector<std::string> &Warnings) {
  auto R = PerfReader::openBuffer(Image.B, "test.data");
  if (!R)
    return toString(R.takeError());
  Error E = (*R)->run(C);
  Warnings.assign((*R)->warnings().begin(), (*R)->warnings().end());
  return E ? toString(std::move(E)) : "";
}

Bytes pipeWithOneSample() {
  Bytes P;
  P.str("PERFILE2", 8).u64(16);
  Bytes AttrRec = attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false);
  P.append(record(PERF_RECORD_HEADER_ATTR, 0, AttrRec));
  P.append(lbrSample(0x77, 3, 1, {{0x1, 0x2, 0}}));
  return P;
}

TEST(PerfReader, PipeTailShorterThanAHeaderIsAWarning) {
  Bytes P = pipeWithOneSample();
  size_t Tail = P.size();
  P.u16(0xffff).B.push_back(1); // 3 stray bytes
  Collector C;
  std::vector<std::string> W;
  ASSERT_EQ(runWarn(P, C, W), "");
  EXPECT_EQ(C.Samples.size(), 1u);
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0], formatv("test.data: offset {0:x} (record #2): 3 trailing "
                          "bytes after the last record, too few for a record "
                          "header (8 bytes); ignored",
                          Tail)
                      .str());
}

TEST(PerfReader, PipeCutInsideLastRecordIsAWarning) {
  Bytes P = pipeWithOneSample();
  size_t Last = P.size();
  P.append(lbrSample(0x88, 3, 2, {{0x1, 0x2, 0}}));
  size_t Whole = P.size() - Last;
  P.B.resize(Last + 20);
  Collector C;
  std::vector<std::string> W;
  ASSERT_EQ(runWarn(P, C, W), "");
  EXPECT_EQ(C.Samples.size(), 1u);
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0], formatv("test.data: offset {0:x} (record #2 SAMPLE): the "
                          "stream ends inside the last record: it claims {1} "
                          "bytes, 20 remain; the partial record is ignored",
                          Last, Whole)
                      .str());
}

TEST(PerfReader, PipeCutInsideAnAuxtracePayloadIsAWarning) {
  // AUXTRACE: { u64 size, offset, reference; u32 idx, tid, cpu, res } and
  // then size bytes of trace that the record's own size does not count.
  Bytes P = pipeWithOneSample();
  size_t At = P.size();
  Bytes Aux;
  Aux.u64(100).u64(0).u64(0).u32(0).u32(3).u32(0).u32(0);
  P.append(record(PERF_RECORD_AUXTRACE, 0, Aux));
  P.B.resize(P.size() + 60, 0xab); // 40 of the 100 bytes missing
  Collector C;
  std::vector<std::string> W;
  ASSERT_EQ(runWarn(P, C, W), "");
  EXPECT_EQ(C.Samples.size(), 1u);
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0], formatv("test.data: offset {0:x} (record #2 AUXTRACE): the "
                          "stream ends inside the payload that follows the "
                          "last record (40 bytes missing); ignored",
                          At)
                      .str());
}

TEST(PerfReader, FileModeRecordPastTheDataIsAnError) {
  // The header's data size ends 4 bytes into the second sample.
  Bytes Data = lbrSample(1, 1, 1, {{0x10, 0x20, 0}});
  size_t First = Data.size();
  Data.append(lbrSample(2, 1, 2, {{0x10, 0x20, 0}}));
  Data.B.resize(First + 4);
  Collector C;
  std::vector<std::string> W;
  std::string Err = runWarn(
      fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}}, Data), C,
      W);
  EXPECT_NE(Err.find("(record #1): truncated record header: 4 bytes remain"),
            std::string::npos)
      << Err;
  EXPECT_TRUE(W.empty());
}

TEST(PerfReader, DamagedFeatureIsSkippedWithAWarning) {
  Bytes Data = lbrSample(1, 1, 1, {{0x10, 0x20, 0}});
  Bytes Image =
      fileImage({{attr(LbrType, PERF_SAMPLE_BRANCH_ANY, false), {}}}, Data);
  // Features hostname (3), cpudesc (8, an empty section, as perf 3.8 on
  // Arm wrote it) and total_mem (10): a table of three sections after the
  // data, then their bytes.
  uint64_t Bits = 1ULL << HEADER_HOSTNAME | 1ULL << HEADER_CPUDESC |
                  1ULL << HEADER_TOTAL_MEM;
  for (int K = 0; K < 8; ++K)
    Image.B[72 + K] = uint8_t(Bits >> (8 * K));
  uint64_t Sections = Image.size() + 3 * 16;
  Bytes Host;
  Host.u32(8).str("box", 8);
  Image.u64(Sections).u64(Host.size());
  Image.u64(Sections + Host.size()).u64(0);
  Image.u64(Sections + Host.size()).u64(8);
  Image.append(Host).u64(4096);
  Collector C;
  std::vector<std::string> W;
  auto R = PerfReader::openBuffer(Image.B, "test.data");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ((*R)->info().Hostname, "box");
  EXPECT_EQ((*R)->info().TotalMemKb, 4096u);
  EXPECT_EQ((*R)->info().CpuDesc, "");
  ASSERT_EQ((*R)->warnings().size(), 1u);
  EXPECT_EQ((*R)->warnings()[0],
            formatv("test.data: offset {0:x}: cpudesc feature: 0-byte "
                    "section, expected a u32 string length and the string; "
                    "feature ignored",
                    Sections + Host.size())
                .str());
  EXPECT_EQ(toString((*R)->run(C)), "");
  EXPECT_EQ(C.Samples.size(), 1u);
}

TEST(PerfReader, SyntheticRecordsWithIdZeroUseTheFirstEvent) {
  // Two events with sample_id_all: a record's trailer id says whose layout
  // it has. perf writes the records it synthesizes with id 0.
  uint64_t T = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
               PERF_SAMPLE_ID;
  Bytes M;
  M.u32(4).u32(4).u64(0x400000).u64(0x1000).u64(0);
  M.u32(8).u32(1).u64(99).u64(0).u32(5).u32(2);
  M.str("/bin/app", 16);
  M.u32(4).u32(4).u64(77).u64(0); // trailer: TID, TIME, ID 0
  Bytes Data = record(PERF_RECORD_MMAP2, 2, M);
  Collector C;
  ASSERT_EQ(run(fileImage({{attr(T, 0, true), {11}}, {attr(T, 0, true), {22}}},
                          Data),
                C),
            "");
  ASSERT_EQ(C.Mmaps.size(), 1u);
  EXPECT_EQ(C.Mmaps[0], "/bin/app@400000+0/77");
}

} // namespace
