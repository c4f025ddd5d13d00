//===- RawProfileFile.cpp - .lbrraw: a raw profile on disk ----------------===//
#include "lbr2prof/Aggregate/RawProfileFile.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/EndianStream.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <array>
#include <tuple>
#include <zstd.h>

using namespace llvm;

namespace lbr2prof {

static constexpr char Magic[8] = {'L', 'B', 'R', '2', 'R', 'A', 'W', '\0'};
/// 2 added the capture times; version 1 files (without them) are read.
static constexpr uint32_t Version = 2;
static constexpr uint32_t FlagZstd = 1;
static constexpr size_t HeaderSize = 24;
/// zstd's level: the same input gives the same frame at a given level.
static constexpr int ZstdLevel = 3;
/// A body larger than this is refused rather than allocated (a damaged
/// size field); 16 GiB is 100x the largest raw profile seen.
static constexpr uint64_t MaxBody = 16ULL << 30;

StringRef unitsName(CountUnits U) {
  switch (U) {
  case CountUnits::Estimates:
    return "estimated executions (window-weighted)";
  case CountUnits::Entries:
    return "branch-stack entries (--no-window-weighting)";
  case CountUnits::Exact:
    return "exact counts";
  }
  return "unknown";
}

bool isRawProfileFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFileSlice(Path, sizeof(Magic), 0,
                                        /*IsVolatile=*/false);
  return Buf && (*Buf)->getBufferSize() == sizeof(Magic) &&
         std::equal(Magic, Magic + sizeof(Magic),
                    (*Buf)->getBufferStart());
}

namespace {

/// The body, written as ULEB128 numbers and length-prefixed strings.
class BodyWriter {
public:
  void num(uint64_t V) { encodeULEB128(V, OS); }
  void str(StringRef S) {
    num(S.size());
    OS << S;
  }
  void bytes(ArrayRef<uint8_t> B) {
    num(B.size());
    OS.write(reinterpret_cast<const char *>(B.data()), B.size());
  }
  /// A Loc as (DSO index + 1, or 0 outside every file) and offset.
  void loc(Loc L) {
    num(L == ExternalLoc ? 0 : uint64_t(locDso(L)) + 1);
    num(L == ExternalLoc ? 0 : locOffset(L));
  }
  /// A weight as its whole number of units (quantizeWeight).
  void weight(double W) { num(uint64_t(W * 65536.0 + 0.5)); }
  std::string Body;
  raw_string_ostream OS{Body};
};

/// Reads the body back with a bounds check on every field.
class BodyReader {
public:
  BodyReader(StringRef Path, StringRef Body) : Path(Path), Body(Body) {}

  Error num(uint64_t &V, const char *What) {
    const char *Err = nullptr;
    unsigned N = 0;
    const uint8_t *P = Body.bytes_begin() + Pos;
    V = decodeULEB128(P, &N, Body.bytes_end(), &Err);
    if (Err)
      return fail(Twine("expected ") + What + ": " + Err);
    Pos += N;
    return Error::success();
  }
  Error str(std::string &S, const char *What) {
    uint64_t N;
    if (Error E = num(N, What))
      return E;
    if (N > Body.size() - Pos)
      return fail(Twine("expected ") + What + ": " + Twine(N) +
                  " bytes, " + Twine(Body.size() - Pos) + " left");
    S = Body.substr(Pos, N).str();
    Pos += N;
    return Error::success();
  }
  Error loc(Loc &L, size_t Dsos, const char *What) {
    uint64_t D, Off;
    if (Error E = num(D, What))
      return E;
    if (Error E = num(Off, What))
      return E;
    if (D > Dsos || Off >> 48)
      return fail(Twine(What) + ": file #" + Twine(D) + " offset 0x" +
                  Twine::utohexstr(Off) + " is outside the file table (" +
                  Twine(Dsos) + " files) or a 48-bit offset");
    L = D == 0 ? ExternalLoc : makeLoc(unsigned(D - 1), Off);
    return Error::success();
  }
  Error weight(double &W, const char *What) {
    uint64_t U;
    if (Error E = num(U, What))
      return E;
    W = double(U) / 65536.0;
    return Error::success();
  }
  /// A count of table rows, checked against the bytes left (each row
  /// takes at least MinRowBytes) before anything is allocated.
  Error rows(uint64_t &N, unsigned MinRowBytes, const char *What) {
    if (Error E = num(N, What))
      return E;
    if (N > (Body.size() - Pos) / MinRowBytes)
      return fail(Twine(What) + " " + Twine(N) + " cannot fit in the " +
                  Twine(Body.size() - Pos) + " bytes left");
    return Error::success();
  }
  bool atEnd() const { return Pos == Body.size(); }
  Error fail(const Twine &Msg) const {
    InputLocation L;
    L.File = Path.str();
    return inputError(L, "body offset " + Twine(Pos) + ": " + Msg);
  }

private:
  StringRef Path, Body;
  size_t Pos = 0;
};

template <typename Map, typename Less>
std::vector<typename Map::value_type> sortedRows(const Map &M, Less L) {
  std::vector<typename Map::value_type> V(M.begin(), M.end());
  std::sort(V.begin(), V.end(), L);
  return V;
}

} // namespace

static void writeStats(BodyWriter &W, const AggregateStats &S) {
  for (uint64_t V : {S.Samples, S.SamplesFiltered, S.SamplesNoBranches,
                     S.Entries, S.EntriesZero, S.EntriesExternal,
                     S.EntriesWrongPath, S.DuplicateTop, S.Ranges,
                     S.RangesExternal, S.RangesCrossDso})
    W.num(V);
}

static Error readStats(BodyReader &R, AggregateStats &S) {
  for (uint64_t *V : {&S.Samples, &S.SamplesFiltered, &S.SamplesNoBranches,
                      &S.Entries, &S.EntriesZero, &S.EntriesExternal,
                      &S.EntriesWrongPath, &S.DuplicateTop, &S.Ranges,
                      &S.RangesExternal, &S.RangesCrossDso})
    if (Error E = R.num(*V, "a sample statistic"))
      return E;
  return Error::success();
}

/// The unwinding statistics, in a fixed order.
static std::array<uint64_t *, 7> contextStatFields(ContextStats &S) {
  return {&S.Samples,  &S.SamplesWhole, &S.SamplesMismatch, &S.SamplesUnusable,
          &S.Entries, &S.EntriesLeft,  &S.DepthCut};
}

/// Calling contexts (version 2): the contexts that have rows and their
/// callers, in the order of their return-address paths (outermost first),
/// each as (its caller's number, 0 for none; its innermost return
/// address), numbered from 1 in that order; the unwinding statistics; then
/// the branches and the ranges in contexts, each sorted by (context
/// number, A, B): context number, A, B, entries, weight. Trie ids depend
/// on the order samples were counted in; these numbers do not.
static void writeContexts(BodyWriter &W, const ContextCounts &C) {
  const ContextTrie &T = C.Trie;
  std::vector<bool> Used(T.size());
  auto mark = [&](uint32_t Id) {
    for (; Id != ContextTrie::Root && !Used[Id]; Id = T.parent(Id))
      Used[Id] = true;
  };
  for (const auto &KV : C.Branches)
    mark(KV.first.Ctx);
  for (const auto &KV : C.Ranges)
    mark(KV.first.Ctx);
  std::vector<std::pair<std::vector<Loc>, uint32_t>> Order;
  for (uint32_t Id = 1; Id < T.size(); ++Id)
    if (Used[Id]) {
      Order.push_back({{}, Id});
      T.path(Id, Order.back().first);
    }
  llvm::sort(Order);
  // A caller's path is a prefix of its callee's, so it is numbered first.
  std::vector<uint64_t> Number(T.size(), 0);
  W.num(Order.size());
  for (size_t K = 0; K < Order.size(); ++K) {
    uint32_t Id = Order[K].second;
    Number[Id] = K + 1;
    W.num(Number[T.parent(Id)]);
    W.loc(T.ret(Id));
  }
  ContextStats S = C.Stats;
  for (uint64_t *V : contextStatFields(S))
    W.num(*V);
  for (const auto *Rows : {&C.Branches, &C.Ranges}) {
    std::vector<std::tuple<uint64_t, Loc, Loc, ContextCount>> Sorted;
    Sorted.reserve(Rows->size());
    for (const auto &[K, V] : *Rows)
      Sorted.push_back({Number[K.Ctx], K.A, K.B, V});
    llvm::sort(Sorted, [](const auto &X, const auto &Y) {
      return std::make_tuple(std::get<0>(X), std::get<1>(X), std::get<2>(X)) <
             std::make_tuple(std::get<0>(Y), std::get<1>(Y), std::get<2>(Y));
    });
    W.num(Sorted.size());
    for (const auto &[N, A, B, V] : Sorted) {
      W.num(N);
      W.loc(A);
      W.loc(B);
      W.num(V.Count);
      W.weight(V.Weight);
    }
  }
}

/// The report's counts (version 2): 0 if there are none; else 1, the
/// path length L, the blocks without cycles, the entries with cycles, the
/// entries; the (block, cycles) rows sorted: start, end, cycles, entries;
/// the paths sorted: 2L locations (each block's start and end, oldest
/// first), occurrences.
static void writeReportCounts(BodyWriter &W, const ReportCounts *C) {
  W.num(C ? 1 : 0);
  if (!C)
    return;
  W.num(C->PathLength);
  W.num(C->BlocksWithoutCycles);
  W.num(C->EntriesWithCycles);
  W.num(C->Entries);
  std::vector<std::pair<std::tuple<Loc, Loc, uint32_t>, uint64_t>> Blocks;
  for (const auto &[K, N] : C->BlockCycles)
    Blocks.push_back({{K.Start, K.End, K.Cycles}, N});
  llvm::sort(Blocks);
  W.num(Blocks.size());
  for (const auto &[K, N] : Blocks) {
    W.loc(std::get<0>(K));
    W.loc(std::get<1>(K));
    W.num(std::get<2>(K));
    W.num(N);
  }
  std::vector<std::pair<std::array<Loc, 2 * MaxPathLength>, uint64_t>> Paths;
  for (const auto &[K, N] : C->Paths)
    Paths.push_back({K.Ends, N});
  llvm::sort(Paths);
  W.num(Paths.size());
  for (const auto &[Ends, N] : Paths) {
    for (unsigned J = 0; J < 2 * C->PathLength; ++J)
      W.loc(Ends[J]);
    W.num(N);
  }
}

Error writeRawProfileFile(const RawProfile &P, ArrayRef<DsoInfo> Dsos,
                          ArrayRef<BuildIdEntry> BuildIds, CountUnits Units,
                          const RawProvenance &Prov, StringRef Path,
                          const ReportCounts *Report) {
  BodyWriter W;
  W.num(uint64_t(Units));
  W.str(Prov.Host);
  W.str(Prov.PerfVersion);
  W.str(Prov.Event);
  W.num(Prov.TimeFirst);
  W.num(Prov.TimeLast);
  W.num(uint64_t(std::max<int64_t>(Prov.CapturedFirst, 0)));
  W.num(uint64_t(std::max<int64_t>(Prov.CapturedLast, 0)));
  W.num(Prov.Recordings);
  writeStats(W, P.Stats);
  W.num(P.WeightedEntries);
  W.weight(P.TotalWeight);
  W.num(P.SamplesWithoutPeriod);
  // Files in index order: a Loc's DSO index is its position here.
  W.num(Dsos.size());
  for (const DsoInfo &D : Dsos) {
    W.str(D.Path);
    W.bytes(dsoBuildId(D, BuildIds));
  }
  auto byKey = [](const auto &A, const auto &B) { return A.first < B.first; };
  auto Branches = sortedRows(P.Branches, byKey);
  W.num(Branches.size());
  for (const auto &[K, C] : Branches) {
    W.loc(K.first);
    W.loc(K.second);
    W.num(C.Count);
    W.num(C.Mispred);
    W.num(C.Cycles);
    W.weight(C.Weight);
  }
  auto Ranges = sortedRows(P.Ranges, byKey);
  W.num(Ranges.size());
  for (const auto &[K, C] : Ranges) {
    W.loc(K.first);
    W.loc(K.second);
    W.num(C.Count);
    W.weight(C.Weight);
  }
  auto Ips = sortedRows(P.Ips, byKey);
  W.num(Ips.size());
  for (const auto &[L, N] : Ips) {
    W.loc(L);
    W.num(N);
  }
  auto PerDso = sortedRows(P.SamplesPerDso, byKey);
  W.num(PerDso.size());
  for (const auto &[D, N] : PerDso) {
    W.num(uint64_t(int64_t(D) + 1));
    W.num(N);
  }
  writeContexts(W, P.Contexts);
  writeReportCounts(W, Report);
  W.OS.flush();

  // With zstd's content checksum, a damaged body is found when it is
  // read, not taken for other counts.
  std::string Frame(ZSTD_compressBound(W.Body.size()), '\0');
  ZSTD_CCtx *C = ZSTD_createCCtx();
  if (!C)
    return makeError("{0}: zstd: out of memory", Path);
  ZSTD_CCtx_setParameter(C, ZSTD_c_compressionLevel, ZstdLevel);
  ZSTD_CCtx_setParameter(C, ZSTD_c_checksumFlag, 1);
  size_t Z = ZSTD_compress2(C, Frame.data(), Frame.size(), W.Body.data(),
                            W.Body.size());
  ZSTD_freeCCtx(C);
  if (ZSTD_isError(Z))
    return makeError("{0}: zstd: {1}", Path, ZSTD_getErrorName(Z));
  Frame.resize(Z);
  Expected<std::unique_ptr<AtomicOutputFile>> F =
      AtomicOutputFile::create(Path);
  if (!F)
    return F.takeError();
  raw_pwrite_stream &OS = (*F)->os();
  OS.write(Magic, sizeof(Magic));
  support::endian::write<uint32_t>(OS, Version, endianness::little);
  support::endian::write<uint32_t>(OS, FlagZstd, endianness::little);
  support::endian::write<uint64_t>(OS, W.Body.size(), endianness::little);
  OS << Frame;
  return (*F)->commit();
}

static Error readContexts(BodyReader &R, size_t Dsos, ContextCounts &C) {
  uint64_t N;
  if (Error E = R.rows(N, 2, "the context count"))
    return E;
  // Number K (from 1) is trie id Ids[K]; 0 is the root.
  std::vector<uint32_t> Ids(1, ContextTrie::Root);
  Ids.reserve(N + 1);
  for (uint64_t K = 0; K < N; ++K) {
    uint64_t Parent;
    Loc Ret;
    if (Error E = R.num(Parent, "a context's caller"))
      return E;
    if (Parent >= Ids.size())
      return R.fail("context #" + Twine(K + 1) + "'s caller #" +
                    Twine(Parent) + " is not before it");
    if (Error E = R.loc(Ret, Dsos, "a context's return address"))
      return E;
    Ids.push_back(C.Trie.child(Ids[Parent], Ret));
  }
  for (uint64_t *V : contextStatFields(C.Stats))
    if (Error E = R.num(*V, "a context statistic"))
      return E;
  for (auto *Rows : {&C.Branches, &C.Ranges}) {
    const char *What = Rows == &C.Branches ? "a branch in a context"
                                           : "a range in a context";
    if (Error E = R.rows(N, 5, What))
      return E;
    Rows->reserve(N);
    for (uint64_t K = 0; K < N; ++K) {
      uint64_t Ctx;
      ContextKey Key;
      ContextCount V;
      if (Error E = R.num(Ctx, What))
        return E;
      if (Ctx >= Ids.size())
        return R.fail("context #" + Twine(Ctx) + " past the table");
      Key.Ctx = Ids[Ctx];
      if (Error E = R.loc(Key.A, Dsos, What))
        return E;
      if (Error E = R.loc(Key.B, Dsos, What))
        return E;
      if (Error E = R.num(V.Count, What))
        return E;
      if (Error E = R.weight(V.Weight, What))
        return E;
      if (!Rows->try_emplace(Key, V).second)
        return R.fail(Twine(What) + " listed twice");
    }
  }
  return Error::success();
}

static Error readReportCounts(BodyReader &R, size_t Dsos,
                              std::optional<ReportCounts> &Out) {
  uint64_t Has, N;
  if (Error E = R.num(Has, "the report counts"))
    return E;
  if (Has > 1)
    return R.fail("report counts flag " + Twine(Has) + " (0 or 1 expected)");
  if (!Has)
    return Error::success();
  ReportCounts &C = Out.emplace();
  uint64_t L;
  if (Error E = R.num(L, "the path length"))
    return E;
  if (L < 1 || L > MaxPathLength)
    return R.fail("path length " + Twine(L) + " (1 to " +
                  Twine(MaxPathLength) + " expected)");
  C.PathLength = unsigned(L);
  for (uint64_t *V : {&C.BlocksWithoutCycles, &C.EntriesWithCycles,
                      &C.Entries})
    if (Error E = R.num(*V, "a report count"))
      return E;
  if (Error E = R.rows(N, 6, "the block cycles count"))
    return E;
  for (uint64_t K = 0; K < N; ++K) {
    BlockCyclesKey B;
    uint64_t Cycles, Count;
    if (Error E = R.loc(B.Start, Dsos, "a block's start"))
      return E;
    if (Error E = R.loc(B.End, Dsos, "a block's end"))
      return E;
    if (Error E = R.num(Cycles, "a block's cycles"))
      return E;
    if (Cycles > UINT32_MAX)
      return R.fail("block cycles " + Twine(Cycles) + " above 32 bits");
    B.Cycles = uint32_t(Cycles);
    if (Error E = R.num(Count, "a block's count"))
      return E;
    if (!C.BlockCycles.try_emplace(B, Count).second)
      return R.fail("a block's cycles listed twice");
  }
  if (Error E = R.rows(N, 4 * C.PathLength + 1, "the path count"))
    return E;
  for (uint64_t K = 0; K < N; ++K) {
    PathKey P;
    for (unsigned J = 0; J < 2 * C.PathLength; ++J)
      if (Error E = R.loc(P.Ends[J], Dsos, "a path's block"))
        return E;
    uint64_t Count;
    if (Error E = R.num(Count, "a path's count"))
      return E;
    if (!C.Paths.try_emplace(P, Count).second)
      return R.fail("a path listed twice");
  }
  return Error::success();
}

static Error readBody(BodyReader &R, uint32_t V, RawProfileFile &F) {
  uint64_t U, N;
  if (Error E = R.num(U, "the units"))
    return E;
  if (U > uint64_t(CountUnits::Exact))
    return R.fail("units " + Twine(U) + " unknown (0 to 2 expected)");
  F.Units = CountUnits(U);
  RawProvenance &P = F.Provenance;
  for (auto [S, What] : {std::pair{&P.Host, "the host"},
                         {&P.PerfVersion, "the perf version"},
                         {&P.Event, "the event"}})
    if (Error E = R.str(*S, What))
      return E;
  uint64_t CapturedFirst = 0, CapturedLast = 0;
  std::vector<uint64_t *> Fields = {&P.TimeFirst, &P.TimeLast};
  if (V >= 2)
    Fields.insert(Fields.end(), {&CapturedFirst, &CapturedLast});
  Fields.push_back(&P.Recordings);
  for (uint64_t *X : Fields)
    if (Error E = R.num(*X, "the provenance"))
      return E;
  if (CapturedFirst > uint64_t(INT64_MAX) || CapturedLast < CapturedFirst)
    return R.fail("capture times " + Twine(CapturedFirst) + ".." +
                  Twine(CapturedLast) + " out of order");
  P.CapturedFirst = int64_t(CapturedFirst);
  P.CapturedLast = int64_t(CapturedLast);
  RawProfile &Prof = F.Profile;
  if (Error E = readStats(R, Prof.Stats))
    return E;
  if (Error E = R.num(Prof.WeightedEntries, "the weighted entries"))
    return E;
  if (Error E = R.weight(Prof.TotalWeight, "the total weight"))
    return E;
  if (Error E = R.num(Prof.SamplesWithoutPeriod, "the samples without period"))
    return E;
  if (Error E = R.rows(N, 2, "the file count"))
    return E;
  if (N >= ProcessMaps::MaxDsos)
    return R.fail("file count " + Twine(N) + " above the limit of " +
                  Twine(ProcessMaps::MaxDsos));
  F.Dsos.resize(N);
  for (DsoInfo &D : F.Dsos) {
    std::string Id;
    if (Error E = R.str(D.Path, "a file name"))
      return E;
    if (Error E = R.str(Id, "a build-id"))
      return E;
    D.BuildId.assign(Id.begin(), Id.end());
  }
  size_t Dsos = F.Dsos.size();
  if (Error E = R.rows(N, 8, "the branch count"))
    return E;
  Prof.Branches.reserve(N);
  for (uint64_t I = 0; I < N; ++I) {
    Loc A, B;
    BranchCount C;
    if (Error E = R.loc(A, Dsos, "a branch source"))
      return E;
    if (Error E = R.loc(B, Dsos, "a branch target"))
      return E;
    if (Error E = R.num(C.Count, "a branch count"))
      return E;
    if (Error E = R.num(C.Mispred, "a branch's mispredictions"))
      return E;
    if (Error E = R.num(C.Cycles, "a branch's cycles"))
      return E;
    if (Error E = R.weight(C.Weight, "a branch's weight"))
      return E;
    if (!Prof.Branches.try_emplace({A, B}, C).second)
      return R.fail("a branch listed twice");
  }
  if (Error E = R.rows(N, 6, "the range count"))
    return E;
  Prof.Ranges.reserve(N);
  for (uint64_t I = 0; I < N; ++I) {
    Loc A, B;
    RangeCount C;
    if (Error E = R.loc(A, Dsos, "a range start"))
      return E;
    if (Error E = R.loc(B, Dsos, "a range end"))
      return E;
    if (Error E = R.num(C.Count, "a range count"))
      return E;
    if (Error E = R.weight(C.Weight, "a range's weight"))
      return E;
    if (!Prof.Ranges.try_emplace({A, B}, C).second)
      return R.fail("a range listed twice");
  }
  if (Error E = R.rows(N, 3, "the sample address count"))
    return E;
  for (uint64_t I = 0; I < N; ++I) {
    Loc L;
    uint64_t C;
    if (Error E = R.loc(L, Dsos, "a sample address"))
      return E;
    if (Error E = R.num(C, "a sample address count"))
      return E;
    Prof.Ips[L] = C;
  }
  if (Error E = R.rows(N, 2, "the per-file sample count"))
    return E;
  for (uint64_t I = 0; I < N; ++I) {
    uint64_t D, C;
    if (Error E = R.num(D, "a file's sample count"))
      return E;
    if (D > Dsos)
      return R.fail("samples of file #" + Twine(D) + ", past the table");
    if (Error E = R.num(C, "a file's sample count"))
      return E;
    Prof.SamplesPerDso[int(D) - 1] = C;
  }
  if (V >= 2) {
    if (Error E = readContexts(R, Dsos, Prof.Contexts))
      return E;
    if (Error E = readReportCounts(R, Dsos, F.Report))
      return E;
  }
  if (!R.atEnd())
    return R.fail("bytes after the last table");
  return Error::success();
}

Expected<RawProfileFile> readRawProfileFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return makeError("{0}: cannot open: {1}", Path, Buf.getError().message());
  StringRef Data = (*Buf)->getBuffer();
  InputLocation At;
  At.File = Path.str();
  if (Data.size() < HeaderSize || !Data.starts_with(StringRef(Magic, 8))) {
    At.Offset = 0;
    return inputError(At, "not a raw profile: expected the 24-byte header "
                          "starting \"LBR2RAW\"");
  }
  using namespace support::endian;
  uint32_t V = read32le(Data.data() + 8), Flags = read32le(Data.data() + 12);
  uint64_t Size = read64le(Data.data() + 16);
  if (V < 1 || V > Version) {
    At.Offset = 8;
    return inputError(At, "raw profile version " + Twine(V) +
                              " (this lbr2prof reads versions 1 to " +
                              Twine(Version) + ")");
  }
  if (Flags & ~FlagZstd) {
    At.Offset = 12;
    return inputError(At, "unknown flags 0x" + Twine::utohexstr(Flags));
  }
  if (Size > MaxBody) {
    At.Offset = 16;
    return inputError(At, "body size " + Twine(Size) + " above the limit");
  }
  StringRef Stored = Data.drop_front(HeaderSize);
  std::string Body;
  if (Flags & FlagZstd) {
    unsigned long long Content =
        ZSTD_getFrameContentSize(Stored.data(), Stored.size());
    size_t FrameSize = ZSTD_findFrameCompressedSize(Stored.data(),
                                                    Stored.size());
    At.Offset = HeaderSize;
    if (Content != Size || ZSTD_isError(FrameSize))
      return inputError(At, "the zstd frame is cut or damaged (its content "
                            "size does not match the header's " +
                                Twine(Size) + " bytes)");
    if (FrameSize != Stored.size())
      return inputError(At, Twine(Stored.size() - FrameSize) +
                                " bytes after the zstd frame");
    Body.resize(Size);
    size_t Got = ZSTD_decompress(Body.data(), Body.size(), Stored.data(),
                                 Stored.size());
    if (ZSTD_isError(Got) || Got != Size)
      return inputError(At, Twine("the zstd frame is damaged: ") +
                                (ZSTD_isError(Got) ? ZSTD_getErrorName(Got)
                                                   : "short"));
  } else {
    if (Stored.size() != Size) {
      At.Offset = HeaderSize;
      return inputError(At, "body of " + Twine(Stored.size()) +
                                " bytes, the header says " + Twine(Size));
    }
    Body = Stored.str();
  }
  RawProfileFile F;
  BodyReader R(Path, Body);
  if (Error E = readBody(R, V, F))
    return std::move(E);
  return std::move(F);
}

} // namespace lbr2prof
