//===- Recording.cpp - read the inputs, find the binary -------------------===//
#include "lbr2prof/Driver/Recording.h"
#include "ProgressHandler.h"
#include "lbr2prof/Driver/Kernel.h"
#include "lbr2prof/Report/Report.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/Path.h"
#include "lbr2prof/Writers/Unsymbolized.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/BuildID.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cassert>
#include <cmath>

using namespace llvm;

namespace lbr2prof {

/// Reads an lbr-record truth file (docs/lbr-record.md) as exact counts:
/// its mappings become MMAP2 events, its ranges and branches are added
/// with their counts.
static Error readTruth(StringRef Path, LbrAggregator &Agg) {
  auto Buf = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buf)
    return makeError("{0}: cannot open: {1}", Path, Buf.getError().message());
  uint32_t Pid = 0;
  uint64_t LineNo = 0;
  std::vector<std::string> Names; // keep filenames alive for MmapEvents
  auto hex = [](StringRef S, uint64_t &V) {
    S.consume_front("0x");
    return !S.getAsInteger(16, V);
  };
  for (StringRef Line : split((*Buf)->getBuffer(), '\n')) {
    ++LineNo;
    SmallVector<StringRef, 16> F;
    Line.split(F, ' ', -1, false);
    if (F.empty() || F[0].starts_with("#"))
      continue;
    auto bad = [&]() {
      InputLocation L;
      L.File = Path.str();
      L.Line = LineNo;
      return inputError(L, "malformed line in lbr-record truth file");
    };
    if (F[0] == "process") {
      if (F.size() < 2 || F[1].getAsInteger(10, Pid))
        return bad();
    } else if (F[0] == "mapping") {
      // mapping I start S end E pgoff O bias B buildid ID path P
      MmapEvent E;
      uint64_t Start, End, PgOff;
      size_t PathAt = Line.find(" path ");
      if (F.size() < 14 || !hex(F[3], Start) || !hex(F[5], End) ||
          !hex(F[7], PgOff) || PathAt == StringRef::npos)
        return bad();
      E.IsMmap2 = true;
      E.Pid = E.Tid = Pid;
      E.Addr = Start;
      E.Len = End - Start;
      E.PgOff = PgOff;
      E.Prot = 5;
      Names.push_back(Line.drop_front(PathAt + 6).str());
      E.Filename = Names.back();
      if (Error Err = Agg.onMmap(E, RecordInfo()))
        return Err;
    } else if (F[0] == "branch" || F[0] == "range") {
      uint64_t A, B, C;
      unsigned CountField = F[0] == "branch" ? 3 : 4;
      if (F.size() <= CountField || !hex(F[1], A) || !hex(F[2], B) ||
          F[CountField].getAsInteger(10, C))
        return bad();
      if (F[0] == "branch")
        Agg.addExactBranch(Pid, A, B, C);
      else
        Agg.addExactRange(Pid, A, B, C);
    }
  }
  return Error::success();
}

/// The caller's image of Binary if it has one (Known), else Binary opened
/// into Own.
static Expected<const BinaryImage *>
openUnlessKnown(StringRef Binary,
                const std::function<const BinaryImage *()> &Known,
                std::unique_ptr<BinaryImage> &Own) {
  if (const BinaryImage *I = Known ? Known() : nullptr)
    return I;
  Expected<std::unique_ptr<BinaryImage>> I = BinaryImage::open(Binary);
  if (!I)
    return I.takeError();
  Own = std::move(*I);
  return Own.get();
}

/// llvm-profgen's unsymbolized profile (--skip-symbolization): a decimal
/// count line, then "begin-end:count" lines (or, with no range, the branch
/// count line and "from->to:count" lines).
static bool looksUnsymbolized(StringRef Path) {
  auto Buf = MemoryBuffer::getFileSlice(Path, 256, 0, /*IsVolatile=*/false);
  if (!Buf)
    return false;
  SmallVector<StringRef, 3> L;
  (*Buf)->getBuffer().split(L, '\n', 2);
  uint64_t N;
  // A context-sensitive one starts with its first context, "[0x...]".
  if (L.size() >= 2 && L[0].starts_with("[0x") && L[0].trim().ends_with("]") &&
      !L[1].trim().getAsInteger(10, N))
    return true;
  if (L.size() < 3 || L[0].trim().getAsInteger(10, N))
    return false;
  StringRef Second = L[1].trim();
  auto [Pair, Count] = Second.rsplit(':');
  return !Count.empty() && !Count.getAsInteger(10, N) &&
         (Pair.contains("->") || Pair.contains('-'));
}

/// Reads an unsymbolized profile as exact counts of Binary, mapped at its
/// preferred address: the offsets are from its first executable segment,
/// and a source outside it is llvm-profgen's address 1.
static Error readUnsymbolized(StringRef Path, StringRef Binary,
                              const std::function<const BinaryImage *()> &Assumed,
                              LbrAggregator &Agg) {
  if (Binary.empty())
    return makeError("{0}: an unsymbolized profile (llvm-profgen "
                     "--skip-symbolization) holds offsets of one binary: "
                     "give it with --binary",
                     Path);
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError("{0}: cannot open: {1}", Path, Buf.getError().message());
  std::unique_ptr<BinaryImage> Own;
  Expected<const BinaryImage *> Image = openUnlessKnown(Binary, Assumed, Own);
  if (!Image)
    return Image.takeError();
  const BinaryImage *Known = *Image;
  uint64_t Base = unsymbolizedBase(*Known);
  for (const Segment &G : Known->segments()) {
    if (!G.Exec)
      continue;
    MmapEvent E;
    E.IsMmap2 = true;
    E.Addr = G.VAddr;
    E.Len = G.MemSize;
    E.PgOff = G.Offset;
    E.Prot = 5;
    E.Filename = Binary;
    if (Error Err = Agg.onMmap(E, RecordInfo()))
      return Err;
  }
  uint64_t LineNo = 0;
  // The two sections: ranges, then branches, each after its count.
  enum { RangeCount, Ranges, BranchCount, Branches } State = RangeCount;
  uint64_t Left = 0;
  for (StringRef Line : split((*Buf)->getBuffer(), '\n')) {
    ++LineNo;
    Line = Line.trim();
    if (Line.empty())
      continue;
    InputLocation Here;
    Here.File = Path.str();
    Here.Line = LineNo;
    auto bad = [&](StringRef Expected) {
      return inputError(Here, "malformed unsymbolized profile line: expected " +
                                  Expected);
    };
    if (Line.starts_with("["))
      return inputError(Here, "a context of a context-sensitive unsymbolized "
                              "profile: these are not read; make the file "
                              "with llvm-profgen --ignore-stack-samples");
    if (State == RangeCount || State == BranchCount) {
      if (Line.getAsInteger(10, Left))
        return bad(State == RangeCount ? "the number of ranges"
                                       : "the number of branches");
      State = State == RangeCount ? Ranges : Branches;
      if (State == Ranges && Left == 0)
        State = BranchCount;
      continue;
    }
    if (Left == 0)
      return bad("the end of the file");
    auto [Pair, CountText] = Line.rsplit(':');
    StringRef Sep = State == Ranges ? "-" : "->";
    auto [A, B] = Pair.split(Sep);
    uint64_t X, Y, C;
    if (CountText.getAsInteger(10, C) || A.getAsInteger(16, X) ||
        B.getAsInteger(16, Y))
      return bad(State == Ranges ? "BEGIN-END:COUNT" : "FROM->TO:COUNT");
    if (State == Ranges)
      Agg.addExactRange(0, X + Base, Y + Base, C);
    else
      Agg.addExactBranch(0, X + Base, Y + Base, C);
    if (--Left == 0 && State == Ranges)
      State = BranchCount;
  }
  if (State != Branches || Left != 0) {
    InputLocation L;
    L.File = Path.str();
    L.Line = LineNo;
    return inputError(L, "unsymbolized profile ends early: expected " +
                             Twine(Left) + " more line" +
                             (Left == 1 ? "" : "s"));
  }
  return Error::success();
}

/// perf script text may map no file at all (llvm-profgen's inputs): the
/// reader is told where the binary would sit, its preferred addresses.
static Error
assumeBinaryMapping(EventSource &Src, StringRef Binary,
                    const std::function<const BinaryImage *()> &Assumed) {
  if (Binary.empty() || !Src.mayLackMappings())
    return Error::success();
  std::unique_ptr<BinaryImage> Own;
  Expected<const BinaryImage *> Image = openUnlessKnown(Binary, Assumed, Own);
  if (!Image)
    return Image.takeError();
  const BinaryImage *Known = *Image;
  AssumedMapping M;
  M.Path = Binary.str();
  for (const Segment &G : Known->segments())
    if (G.Exec)
      M.Segments.push_back({G.VAddr, G.MemSize, G.Offset});
  Src.assumeMapping(std::move(M));
  return Error::success();
}

/// Adds an input's provenance to the recording's, and checks that its
/// units are the others'.
static Error addProvenance(Recording &Rec, StringRef In, CountUnits Units,
                           const RawProvenance &In2) {
  if (Rec.Units && *Rec.Units != Units)
    return makeError("{0}: its counts are {1}, the inputs before it {2}: "
                     "they cannot be added (docs/formats.md, \"Units of the "
                     "counts\")",
                     In, unitsName(Units), unitsName(*Rec.Units));
  Rec.Units = Units;
  RawProvenance &P = Rec.Provenance;
  if (P.Host.empty())
    P.Host = In2.Host;
  if (P.PerfVersion.empty())
    P.PerfVersion = In2.PerfVersion;
  if (In2.TimeFirst && (!P.TimeFirst || In2.TimeFirst < P.TimeFirst))
    P.TimeFirst = In2.TimeFirst;
  P.TimeLast = std::max(P.TimeLast, In2.TimeLast);
  if (In2.CapturedFirst &&
      (!P.CapturedFirst || In2.CapturedFirst < P.CapturedFirst))
    P.CapturedFirst = In2.CapturedFirst;
  P.CapturedLast = std::max(P.CapturedLast, In2.CapturedLast);
  P.Recordings += In2.Recordings;
  return Error::success();
}

/// When a recording file was made: its modification time, as perf's
/// "captured on"; 0 for a pipe or a file that cannot be stat'ed.
static int64_t capturedAt(StringRef In) {
  sys::fs::file_status St;
  if (In == "-" || sys::fs::status(In, St) ||
      St.type() != sys::fs::file_type::regular_file)
    return 0;
  return int64_t(sys::toTimeT(St.getLastModificationTime()));
}

/// The weight --weight and --decay give an input whose provenance is P.
static Expected<double> inputWeight(StringRef In, const RawProvenance &P,
                                    const InputOptions &Opts) {
  double W = 1.0;
  auto It = Opts.Weights.find(In.str());
  if (It != Opts.Weights.end())
    W = It->second;
  if (Opts.DecayHalfLife <= 0)
    return W;
  if (!P.CapturedLast)
    return makeError("{0}: when it was captured is unknown ({1}), so --decay "
                     "cannot weigh it: give it --weight instead",
                     In,
                     In == "-" ? "it is read from a pipe"
                               : "a raw profile of a pipe, or of version 1");
  double Age = double(Opts.DecayTo - P.CapturedLast);
  return W * std::exp2(-Age / Opts.DecayHalfLife);
}

/// A raw profile's counts, scaled by its input weight (1: as they are),
/// are added to the aggregator's.
static Error addRawInput(StringRef In, RawProfileFile &&F,
                         const InputOptions &Opts, LbrAggregator &Agg,
                         Recording &Rec, bool Provenance = true) {
  const RawProvenance &P = F.Provenance;
  if (Provenance) {
    if (Error E = addProvenance(Rec, In, F.Units, P))
      return E;
    if (Rec.EventName.empty())
      Rec.EventName = P.Event;
  }
  Expected<double> W = inputWeight(In, P, Opts);
  if (!W)
    return W.takeError();
  if (Opts.Report && !F.Report)
    return makeError("{0}: a raw profile without the report's counts (block "
                     "cycles, paths): write it with --with-report (lbr2prof "
                     "perf.data --with-report -o host.lbrraw), or give the "
                     "recordings",
                     In);
  if (Opts.Report && F.Report->PathLength != Opts.Report->PathLength)
    return makeError("{0}: its paths are {1} blocks long, not {2}: give "
                     "--path-length {1}",
                     In, F.Report->PathLength, Opts.Report->PathLength);
  if (*W != 1.0) {
    F.Profile.scaleBy(*W);
    if (F.Report)
      scaleReportCounts(*F.Report, *W);
  }
  ReportCounts *RC = Opts.Report ? &*F.Report : nullptr;
  Agg.importRaw(std::move(F.Profile), F.Dsos, RC);
  if (RC)
    mergeReportCounts(*Opts.Report, *RC);
  return Error::success();
}

/// A raw profile (.lbrraw) as an input.
static Error readRawInput(StringRef In, const InputOptions &Opts,
                          LbrAggregator &Agg, Recording &Rec) {
  Expected<RawProfileFile> F = readRawProfileFile(In);
  if (!F)
    return F.takeError();
  return addRawInput(In, std::move(*F), Opts, Agg, Rec);
}

static Error readInput(StringRef In, const InputOptions &Opts,
                       LbrAggregator &Agg, PerfEventHandler &Handler,
                       Recording &Rec, Diagnostics &Diags) {
  Expected<std::unique_ptr<EventSource>> Src = openEventSource(In);
  if (!Src)
    return Src.takeError();
  if (Error E = assumeBinaryMapping(**Src, Opts.AssumeBinary,
                                    Opts.AssumeImage))
    return E;
  Agg.setInputName(In);
  Agg.setBuildIdTable((*Src)->info().BuildIds);
  Error RunErr = [&] {
    ProgressHandler PH(Handler, **Src, "reading " + In.str());
    return (*Src)->run(PH);
  }();
  // Faults the reader survived (a damaged header feature, a cut pipe).
  for (const std::string &W : (*Src)->warnings())
    Diags.warning(W);
  if (RunErr)
    return RunErr;
  const PerfFileInfo &Info = (*Src)->info();
  if (Info.AssumedLoadAddress)
    Diags.note(formatv("{0}: no mapping of {1} in the input; assumed it "
                       "loaded at its preferred address {2:x} (as "
                       "llvm-profgen does)",
                       In, sys::path::filename(Opts.AssumeBinary),
                       *Info.AssumedLoadAddress));
  Rec.BuildIds.insert(Rec.BuildIds.end(), Info.BuildIds.begin(),
                      Info.BuildIds.end());
  RawProvenance P;
  P.Host = Info.Hostname;
  P.PerfVersion = Info.Version;
  P.TimeFirst = Info.SampleTimeFirst;
  P.TimeLast = Info.SampleTimeLast;
  P.CapturedFirst = P.CapturedLast = capturedAt(In);
  P.Recordings = 1;
  if (Error E = addProvenance(Rec, In, Opts.SampleUnits, P))
    return E;
  if (Rec.EventName.empty() && !Info.Attrs.empty())
    Rec.EventName = Info.Attrs[0].Name.empty() ? "cycles" : Info.Attrs[0].Name;
  Agg.startNewInput();
  return Error::success();
}

/// A recording read on its own and scaled by its weight before it is
/// added (--weight, --decay): the counts of one recording, as its raw
/// profile would hold them.
static Error readWeightedInput(StringRef In, const InputOptions &Opts,
                               LbrAggregator &Agg, Recording &Rec,
                               Diagnostics &Diags) {
  RawProfileFile F;
  F.Units = Opts.SampleUnits;
  F.Provenance.CapturedFirst = F.Provenance.CapturedLast = capturedAt(In);
  // Known before the input is read: a weight that cannot be given is
  // said before the reading.
  Expected<double> W = inputWeight(In, F.Provenance, Opts);
  if (!W)
    return W.takeError();
  LbrAggregator One(Agg.options());
  // The report's counts of this recording, weighed with it.
  std::optional<ReportCollector> Col;
  if (Opts.Report)
    Col.emplace(One, One.options(), Opts.Report->PathLength);
  PerfEventHandler &H = Col ? static_cast<PerfEventHandler &>(*Col) : One;
  if (Error E = readInput(In, Opts, One, H, Rec, Diags))
    return E;
  if (Error E = One.finish())
    return E;
  F.Dsos = One.maps().dsos();
  F.Profile = std::move(One.profile());
  if (Col)
    F.Report = std::move(Col->Counts);
  InputOptions Scaled = Opts;
  Scaled.Weights.clear();
  Scaled.DecayHalfLife = 0;
  if (*W != 1.0)
    Scaled.Weights[In.str()] = *W;
  return addRawInput(In, std::move(F), Scaled, Agg, Rec, /*Provenance=*/false);
}

Error checkInputs(ArrayRef<std::string> Inputs, StringRef FromTruth) {
  if (Inputs.empty() && FromTruth.empty())
    return makeError("no input: give a perf.data file (or '-' for stdin)");
  return Error::success();
}

Error noBranchStackError(StringRef Name, StringRef Hint) {
  return makeError("{0}: no sample has a branch stack; record with `perf "
                   "record -b` (or -j any,u){1}",
                   Name, Hint);
}

/// When the newest input was captured, for --decay's ages: perf.data files
/// by their modification time, raw profiles by their provenance.
static Expected<int64_t> newestCapture(ArrayRef<std::string> Inputs) {
  int64_t Newest = 0;
  for (const std::string &In : Inputs) {
    int64_t T = capturedAt(In);
    if (In != "-" && isRawProfileFile(In)) {
      // Read whole: raw profiles are small (give --decay-to to skip this).
      Expected<RawProfileFile> F = readRawProfileFile(In);
      if (!F)
        return F.takeError();
      T = F->Provenance.CapturedLast;
    }
    Newest = std::max(Newest, T);
  }
  return Newest;
}

/// Every input, into Agg and Rec.
static Error readAll(const InputOptions &Opts, LbrAggregator &Agg,
                     PerfEventHandler &Handler, Recording &Rec,
                     Diagnostics &Diags) {
  for (const std::string &In : Opts.Inputs) {
    if (In != "-" && isRawProfileFile(In)) {
      if (Error E = readRawInput(In, Opts, Agg, Rec))
        return E;
      continue;
    }
    if (In != "-" && looksUnsymbolized(In)) {
      if (Opts.weighted())
        return makeError("{0}: an unsymbolized profile cannot be weighed "
                         "(--weight, --decay apply to recordings and raw "
                         "profiles)",
                         In);
      RawProvenance P;
      P.Recordings = 1;
      if (Error E = addProvenance(Rec, In, CountUnits::Exact, P))
        return E;
      if (Error E = readUnsymbolized(In, Opts.AssumeBinary, Opts.AssumeImage,
                                     Agg))
        return E;
      continue;
    }
    if (Error E = Opts.weighted()
                      ? readWeightedInput(In, Opts, Agg, Rec, Diags)
                      : readInput(In, Opts, Agg, Handler, Rec, Diags))
      return E;
  }
  return Error::success();
}

Expected<Recording> readRecording(const InputOptions &Opts,
                                  LbrAggregator &Agg,
                                  PerfEventHandler &Handler,
                                  Diagnostics &Diags) {
  if (Error E = checkInputs(Opts.Inputs, Opts.FromTruth))
    return std::move(E);
  Recording Rec;
  Rec.FromTruth = !Opts.FromTruth.empty();
  Rec.Name = Rec.FromTruth ? Opts.FromTruth : Opts.Inputs.front();
  if (Rec.FromTruth)
    if (Error E = readTruth(Opts.FromTruth, Agg))
      return std::move(E);
  if (Rec.FromTruth)
    Rec.Units = CountUnits::Exact;
  if (Opts.DecayHalfLife > 0 && !Opts.DecayTo) {
    // Ages count from the newest input, so the same inputs give the same
    // weights whenever they are merged.
    Expected<int64_t> Newest = newestCapture(Opts.Inputs);
    if (!Newest)
      return Newest.takeError();
    InputOptions Aged = Opts;
    Aged.DecayTo = *Newest;
    if (Error E = readAll(Aged, Agg, Handler, Rec, Diags))
      return std::move(E);
  } else if (Error E = readAll(Opts, Agg, Handler, Rec, Diags)) {
    return std::move(E);
  }
  if (Error E = Agg.finish())
    return std::move(E);
  const AggregateStats &S = Agg.profile().Stats;
  // Exact counts (a truth file, an unsymbolized profile) have no samples.
  if (Rec.Units != CountUnits::Exact && S.Samples == S.SamplesFiltered) {
    if (S.Samples == 0)
      return makeError("{0}: no samples", Rec.Name);
    return makeError("{0}: no samples of the selected --pid ({1} samples of "
                     "other processes; `lbr2prof dump --summary` lists them "
                     "per pid)",
                     Rec.Name, S.Samples);
  }
  return Rec;
}

std::string listDsos(const RawProfile &Raw, const std::vector<DsoInfo> &Dsos) {
  std::vector<std::pair<uint64_t, int>> V;
  for (auto &[D, N] : Raw.SamplesPerDso)
    V.push_back({N, -D});
  // Most samples first; of equal counts, the first mapped.
  std::sort(V.rbegin(), V.rend());
  std::string S;
  for (size_t K = 0; K < V.size() && K < 5; ++K) {
    int D = -V[K].second;
    S += formatv("{0} {1} {2}", K ? "," : "", V[K].first,
                 D < 0 ? "[unknown]" : Dsos[D].Path);
  }
  if (V.size() > 5)
    S += formatv(", and {0} more", V.size() - 5);
  return S;
}

/// The busiest of the DSOs Ok accepts, ties to the first mapped; -1 if none
/// has a sample.
static int busiest(const RawProfile &Raw, function_ref<bool(int)> Ok) {
  int Best = -1;
  uint64_t BestN = 0;
  for (auto &[D, N] : Raw.SamplesPerDso)
    if (D >= 0 && N && Ok(D) && (N > BestN || (N == BestN && D < Best)))
      Best = D, BestN = N;
  return Best;
}

/// --kernel: the kernel text map with the most samples is vmlinux, if
/// their build-ids agree (perf records the kernel's under
/// `[kernel.kallsyms]`).
static Error checkKernelBuildId(const DsoInfo &Kernel,
                                ArrayRef<BuildIdEntry> PerfBuildIds,
                                const BinaryImage &Image, StringRef BinPath,
                                bool IgnoreBuildId) {
  ArrayRef<uint8_t> Id = Kernel.BuildId;
  for (const BuildIdEntry &B : PerfBuildIds)
    if (Id.empty() && StringRef(B.Filename).starts_with("[kernel.kallsyms]"))
      Id = B.Id;
  if (!IgnoreBuildId && !Id.empty() && !Image.buildId().empty() &&
      !sameBuildId(Id, Image.buildId()))
    return makeError("{0}: build-id {1} differs from the recorded kernel's "
                     "({2}); use --ignore-build-id to use it anyway",
                     BinPath, toHex(Image.buildId(), true), toHex(Id, true));
  return Error::success();
}

Expected<SelectedBinary> selectBinary(const Recording &Rec,
                                      const RawProfile &Raw,
                                      const ProcessMaps &Maps,
                                      const BinaryOptions &Opts,
                                      const BinaryImage *Known) {
  const std::vector<DsoInfo> &Dsos = Maps.dsos();
  SelectedBinary B;
  B.Path = Opts.Binary;
  B.Kernel = Opts.Kernel;
  if (Opts.Kernel) {
    assert(!Opts.Binary.empty() && "validate() requires --binary for --kernel");
    Expected<int> K = findKernelDso(Dsos, Raw, Rec.Name);
    if (!K)
      return K.takeError();
    B.Dso = *K;
    B.Mappings = {B.Dso};
  } else if (B.Path.empty()) {
    B.Dso = busiest(Raw, [&](int D) {
      return !StringRef(Dsos[D].Path).starts_with("[");
    });
    if (B.Dso < 0 && Dsos.empty())
      return makeError("{0}: no samples fall in a mapped file: the input "
                       "maps no file (perf script text needs `perf script "
                       "--show-mmap-events`; or give --binary, which is then "
                       "assumed at its preferred address)",
                       Rec.Name);
    if (B.Dso < 0)
      return makeError("{0}: no samples fall in a mapped file; samples per "
                       "DSO:{1}",
                       Rec.Name, listDsos(Raw, Dsos));
    B.Path = locateBinary(Dsos[B.Dso].Path,
                          dsoBuildId(Dsos[B.Dso], Rec.BuildIds), Opts);
  }
  if (Known) {
    B.Image = Known;
  } else {
    Expected<std::unique_ptr<BinaryImage>> Img =
        BinaryImage::open(B.Path, &Opts.Debug);
    if (!Img) {
      if (!Opts.Binary.empty())
        return Img.takeError();
      // The path the recording names: say where it came from and what to
      // do.
      return makeError("{0} (the busiest file of the recording, by the path "
                       "it was mapped from; give its copy with --binary "
                       "PATH, or where copies are with --binary-dir or "
                       "--sysroot)",
                       toString(Img.takeError()));
    }
    B.Owned = std::move(*Img);
    B.Image = B.Owned.get();
  }
  const BinaryImage &Image = *B.Image;
  if (Opts.Kernel) {
    if (Error E = checkKernelBuildId(Dsos[B.Dso], Rec.BuildIds, Image, B.Path,
                                     Opts.IgnoreBuildId))
      return std::move(E);
    return std::move(B);
  }
  // Every mapping of the binary: by build-id, or by file name when one
  // build-id is missing (matchDso).
  // Of files mapped from one path, the binary's own build is chosen when
  // it is there; other builds are left out (and said), and are an error
  // only when none is the binary's.
  std::vector<DsoMatch> Match(Dsos.size());
  bool AnySame = false;
  for (int D = 0; D < int(Dsos.size()); ++D) {
    Match[D] = matchDso(Dsos[D].Path, dsoBuildId(Dsos[D], Rec.BuildIds),
                        B.Path, Image.buildId());
    AnySame |= Match[D] == DsoMatch::Same;
  }
  for (int D = 0; D < int(Dsos.size()); ++D) {
    if (Match[D] == DsoMatch::None)
      continue;
    if (Match[D] == DsoMatch::BuildIdDiffers && AnySame &&
        !Opts.IgnoreBuildId) {
      B.OtherBuilds.push_back(D);
      continue;
    }
    if (Match[D] == DsoMatch::BuildIdDiffers && !Opts.IgnoreBuildId)
      return makeError(
          "{0}: build-id {1} differs from the profiled {2} ({3}); use "
          "--ignore-build-id to use it anyway",
          B.Path, toHex(Image.buildId(), true), Dsos[D].Path,
          toHex(dsoBuildId(Dsos[D], Rec.BuildIds), true));
    B.Mappings.push_back(D);
  }
  if (B.Mappings.empty())
    return makeError("{0}: no mapping of this binary in {1}; samples per "
                     "DSO:{2}",
                     B.Path, Rec.Name, listDsos(Raw, Dsos));
  int Busiest = busiest(Raw, [&](int D) {
    return is_contained(B.Mappings, D);
  });
  if (Busiest < 0)
    return makeError("{0}: no samples in this binary; samples per DSO:{1}",
                     B.Path, listDsos(Raw, Dsos));
  B.Dso = Busiest;
  return std::move(B);
}

/// The build-id of the object file at Path; empty if it has none or is no
/// object file.
static std::vector<uint8_t> fileBuildId(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf)
    return {};
  auto Obj = object::ObjectFile::createObjectFile((*Buf)->getMemBufferRef());
  if (!Obj) {
    consumeError(Obj.takeError());
    return {};
  }
  object::BuildIDRef Id = object::getBuildID(Obj->get());
  return std::vector<uint8_t>(Id.begin(), Id.end());
}

std::string locateBinary(StringRef Recorded, ArrayRef<uint8_t> BuildId,
                         const BinaryOptions &Opts) {
  std::vector<std::string> Candidates;
  if (!Opts.BinaryDir.empty()) {
    if (BuildId.size() > 1) {
      // perf buildid-cache: .build-id/xx/yyyy links to the copy, or (perf
      // 4.x and later) to a directory holding it as "elf".
      std::string Hex = toHex(BuildId, /*LowerCase=*/true);
      SmallString<256> P(Opts.BinaryDir);
      sys::path::append(P, ".build-id", Hex.substr(0, 2), Hex.substr(2));
      if (sys::fs::is_directory(P))
        sys::path::append(P, "elf");
      Candidates.push_back(std::string(P));
    }
    SmallString<256> P(Opts.BinaryDir);
    sys::path::append(P, recordedFileName(Recorded));
    Candidates.push_back(std::string(P));
  }
  if (!Opts.Sysroot.empty()) {
    SmallString<256> P(Opts.Sysroot);
    sys::path::append(P, Recorded);
    Candidates.push_back(std::string(P));
  }
  Candidates.push_back(Recorded.str());
  std::string FirstExisting;
  for (const std::string &C : Candidates) {
    if (!sys::fs::is_regular_file(C))
      continue;
    if (BuildId.empty() || sameBuildId(fileBuildId(C), BuildId))
      return C;
    if (FirstExisting.empty())
      FirstExisting = C;
  }
  return FirstExisting.empty() ? Recorded.str() : FirstExisting;
}

SampleShare sampleShare(const RawProfile &Raw, ArrayRef<int> Mappings) {
  SampleShare S;
  for (auto &[D, N] : Raw.SamplesPerDso) {
    S.Total += N;
    if (is_contained(Mappings, D))
      S.Samples += N;
  }
  return S;
}

std::string describeOtherBuilds(const SelectedBinary &B,
                                const RawProfile &Raw, const ProcessMaps &Maps,
                                const Recording &Rec) {
  if (B.OtherBuilds.empty())
    return "";
  uint64_t N = 0;
  std::string Ids;
  for (int D : B.OtherBuilds) {
    N += Raw.SamplesPerDso.lookup(D);
    Ids += (Ids.empty() ? "" : ", ") +
           toHex(dsoBuildId(Maps.dsos()[D], Rec.BuildIds), true);
  }
  return formatv("{0}: {1} samples of {2} other build{3} mapped from its "
                 "path left out (build-id {4}); the profile is of build-id "
                 "{5}",
                 B.Path, N, B.OtherBuilds.size(),
                 B.OtherBuilds.size() == 1 ? "" : "s", Ids,
                 toHex(B.image().buildId(), true));
}

std::string describeChoice(const SelectedBinary &B, const RawProfile &Raw,
                           const ProcessMaps &Maps) {
  const std::vector<DsoInfo> &Dsos = Maps.dsos();
  SampleShare S = sampleShare(Raw, B.Mappings);
  std::string Id = B.image().buildId().empty()
                       ? std::string("no build-id")
                       : "build-id " + toHex(B.image().buildId(), true);
  std::string Msg = formatv("chose {0} ({1}), the busiest mapped file: {2} "
                            "of {3} samples ({4:f1}%)",
                            B.Path, Id, S.Samples, S.Total,
                            S.Total ? 100.0 * S.Samples / S.Total : 0.0);
  int Next = busiest(Raw, [&](int D) {
    return !is_contained(B.Mappings, D) &&
           !StringRef(Dsos[D].Path).starts_with("[");
  });
  if (Next >= 0)
    Msg += formatv("; next: {0} {1}", Dsos[Next].Path,
                   Raw.SamplesPerDso.lookup(Next));
  return Msg + "; give --binary to choose another";
}

void noteDebugFile(StringRef BinaryPath, const DebugFileResult *D,
                   Diagnostics &Diags) {
  if (!D)
    return;
  if (D->separate())
    Diags.note(formatv("{0}: debug file {1} ({2})", BinaryPath, D->Path,
                       D->how()));
  if (!D->Skipped.empty())
    Diags.warning(formatv("{0}: skipped debug files of another build: {1}",
                          BinaryPath, join(D->Skipped, ", ")));
}

Error noSymbolsError(const SelectedBinary &B, StringRef Need, StringRef Else) {
  const DebugFileResult *D = B.image().debugFile();
  std::string Where;
  if (!D)
    Where = "the binary has no .symtab (stripped?)";
  else if (D->separate())
    Where = formatv("neither the binary nor its debug file {0} ({1}) has a "
                    ".symtab",
                    D->Path, D->how())
                .str();
  else if (D->Source == DebugFileSource::Binary)
    Where = "the binary has DWARF but no .symtab";
  else
    Where = "the binary has no .symtab (stripped) and no debug file: " +
            D->searchSummary();
  return makeError("{0}: no function symbols: {1}; {2}; give its debug file "
                   "(--debug-file FILE) or the unstripped binary{3}",
                   B.Path, Need, Where, Else);
}

Error foldMappings(RawProfile &Raw, const SelectedBinary &B,
                   const ProcessMaps &Maps) {
  if (B.Kernel)
    return relocateKernel(Raw, B.Dso, Maps.dsos()[B.Dso].Path, B.image(),
                          B.Path);
  DenseMap<int, int> Same;
  for (int D : B.Mappings)
    if (D != B.Dso)
      Same[D] = B.Dso;
  if (!Same.empty())
    Raw.renameDsos(Same);
  return Error::success();
}

} // namespace lbr2prof
