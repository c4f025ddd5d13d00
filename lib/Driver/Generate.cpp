//===- Generate.cpp - perf.data + binary -> profile -----------------------===//
//
// The stages in order: read and aggregate every input (LbrAggregator), pick
// the binary's DSO, build its BinaryProfile, write. Statistics go to Err so
// that Out can carry a dump.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Driver/Generate.h"
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "lbr2prof/Support/Progress.h"
#include "lbr2prof/Writers/Fdata.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <thread>

using namespace llvm;

namespace lbr2prof {

Expected<OutputFormat> resolveFormat(OutputFormat F, StringRef Output) {
  if (F != OutputFormat::Auto)
    return F;
  StringRef Ext = sys::path::extension(Output);
  if (Ext == ".fdata")
    return OutputFormat::Fdata;
  if (Ext == ".preagg" || Ext == ".pa")
    return OutputFormat::PreAggregated;
  if (Ext == ".txt")
    return OutputFormat::Text;
  if (Ext == ".prof" || Ext == ".afdo" || Ext == ".extbinary")
    return OutputFormat::ExtBinary;
  return makeError("{0}: cannot tell the output format from the name; use "
                   "--format=fdata|preagg|text|binary|extbinary",
                   Output);
}

namespace {

bool sameBuildId(ArrayRef<uint8_t> A, ArrayRef<uint8_t> B) {
  // perf may store 20 bytes for shorter ids (padded); compare the common
  // prefix, as BOLT does.
  size_t N = std::min(A.size(), B.size());
  return N && A.take_front(N) == B.take_front(N);
}

} // namespace

Error runGenerate(const GenerateOptions &Opts, raw_ostream &Out,
                  raw_ostream &Err) {
  if (Opts.Inputs.empty())
    return makeError("no input: give a perf.data file (or '-' for stdin)");
  Expected<OutputFormat> Format = resolveFormat(Opts.Format, Opts.Output);
  if (!Format)
    return Format.takeError();
  if (*Format == OutputFormat::Text || *Format == OutputFormat::Binary ||
      *Format == OutputFormat::ExtBinary)
    return makeError("LLVM sample profile output is not implemented yet; "
                     "write --format=fdata or preagg");
  unsigned Threads = Opts.Threads ? Opts.Threads
                                  : std::max(1u, std::thread::hardware_concurrency());

  AggregateOptions AO;
  AO.WindowWeighting = Opts.WindowWeighting;
  for (uint32_t P : Opts.Pids)
    AO.Pids.insert(P);
  LbrAggregator Agg(AO);
  std::vector<BuildIdEntry> PerfBuildIds;
  std::string EventName;
  for (const std::string &In : Opts.Inputs) {
    Expected<std::unique_ptr<EventSource>> Src = openEventSource(In);
    if (!Src)
      return Src.takeError();
    if (Error E = (*Src)->run(Agg))
      return E;
    const PerfFileInfo &Info = (*Src)->info();
    PerfBuildIds.insert(PerfBuildIds.end(), Info.BuildIds.begin(),
                        Info.BuildIds.end());
    if (EventName.empty() && !Info.Attrs.empty())
      EventName = Info.Attrs[0].Name.empty() ? "cycles" : Info.Attrs[0].Name;
    Agg.startNewInput();
  }
  RawProfile &Raw = Agg.profile();
  const std::vector<DsoInfo> &Dsos = Agg.maps().dsos();
  auto buildIdOf = [&](int D) -> ArrayRef<uint8_t> {
    if (!Dsos[D].BuildId.empty())
      return Dsos[D].BuildId;
    for (const BuildIdEntry &B : PerfBuildIds)
      if (B.Filename == Dsos[D].Path)
        return B.Id;
    return {};
  };
  auto listDsos = [&]() {
    std::vector<std::pair<uint64_t, int>> V;
    for (auto &[D, N] : Raw.SamplesPerDso)
      V.push_back({N, D});
    std::sort(V.rbegin(), V.rend());
    std::string S;
    for (auto &[N, D] : V)
      S += formatv("\n  {0,10} {1}", N, D < 0 ? "[unknown]" : Dsos[D].Path);
    return S;
  };
  if (Raw.Stats.Samples == 0)
    return makeError("{0}: no samples", Opts.Inputs.front());

  // Choose the DSO.
  std::string BinPath = Opts.Binary;
  int Dso = -1;
  if (BinPath.empty()) {
    uint64_t Best = 0;
    for (auto &[D, N] : Raw.SamplesPerDso)
      if (D >= 0 && N > Best && !StringRef(Dsos[D].Path).starts_with("["))
        Best = N, Dso = D;
    if (Dso < 0)
      return makeError("no samples fall in a mapped file; samples per DSO:{0}",
                       listDsos());
    BinPath = Dsos[Dso].Path;
  }
  Expected<std::unique_ptr<BinaryImage>> Img = BinaryImage::open(BinPath);
  if (!Img)
    return Img.takeError();
  const BinaryImage &Image = **Img;
  if (Dso < 0) {
    StringRef Base = sys::path::filename(BinPath);
    uint64_t Best = 0;
    bool Any = false;
    for (int D = 0; D < int(Dsos.size()); ++D) {
      ArrayRef<uint8_t> Id = buildIdOf(D);
      bool IdMatch = !Id.empty() && sameBuildId(Id, Image.buildId());
      bool NameMatch = sys::path::filename(Dsos[D].Path) == Base;
      if (!IdMatch && !NameMatch)
        continue;
      if (NameMatch && !IdMatch && !Id.empty() && !Image.buildId().empty() &&
          !Opts.IgnoreBuildId)
        return makeError(
            "{0}: build-id {1} differs from the profiled {2} ({3}); use "
            "--ignore-build-id to use it anyway",
            BinPath, toHex(Image.buildId(), true), Dsos[D].Path,
            toHex(Id, true));
      Any = true;
      uint64_t N = Raw.SamplesPerDso.lookup(D);
      if (Dso < 0 || N > Best)
        Best = N, Dso = D;
    }
    if (!Any)
      return makeError("{0}: no mapping of this binary in the input; samples "
                       "per DSO:{1}",
                       BinPath, listDsos());
  }

  Expected<std::unique_ptr<AtomicOutputFile>> OutF =
      AtomicOutputFile::create(Opts.Output);
  if (!OutF)
    return OutF.takeError();
  if (Opts.NoLbr || *Format == OutputFormat::PreAggregated) {
    if (Opts.NoLbr)
      writeNoLbrFdata(Raw, Dso, Image, EventName, (*OutF)->os());
    else
      writePreAggregated(Raw, Dso, Image, (*OutF)->os());
  } else {
    if (Raw.Branches.empty())
      return makeError("{0}: no sample has a branch stack; record with `perf "
                       "record -b` (or -j any,u), or use --no-lbr for an "
                       "IP-sample profile",
                       Opts.Inputs.front());
    BinaryProfileOptions PO;
    PO.Threads = Threads;
    BinaryProfile P = buildBinaryProfile(Raw, Dso, Image, PO);
    if (Opts.Dump == "cfg")
      printCfgs(P, Image, Out);
    if (Opts.Stats)
      printProfileStats(P.Stats, Raw.Stats, Err);
    writeFdata(P, Image, (*OutF)->os());
  }
  if (Opts.Dump == "raw")
    printRawProfile(Raw, Agg.maps(), Out);
  return (*OutF)->commit();
}

} // namespace lbr2prof
