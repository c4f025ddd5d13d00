//===- Generate.cpp - perf.data + binary -> profile -----------------------===//
//
// The stages in order: read and aggregate every input (LbrAggregator), pick
// the binary's DSO, build its BinaryProfile, write. Statistics go to Err so
// that Out can carry a dump.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Driver/Generate.h"
#include "lbr2prof/Driver/Kernel.h"
#include "ProgressHandler.h"
#include "lbr2prof/Aggregate/LbrAggregator.h"
#include "lbr2prof/Binary/BinaryImage.h"
#include "lbr2prof/Binary/PseudoProbes.h"
#include "lbr2prof/PerfData/PerfReader.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "lbr2prof/Profile/ContextProfileBuilder.h"
#include "lbr2prof/Profile/ProbeProfileBuilder.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "lbr2prof/Support/Progress.h"
#include "lbr2prof/Writers/Fdata.h"
#include "lbr2prof/Writers/SampleProf.h"
#include "lbr2prof/Profile/SampleProfileBuilder.h"
#include "lbr2prof/Binary/Symbolizer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <thread>
#include "llvm/Support/MemoryBuffer.h"

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


/// Reads an lbr-record truth file (docs/lbr-record.md) as exact counts:
/// its mappings become MMAP2 events, its ranges and branches are added
/// with their counts.
/// The DWARF parser's complaints, one line each: the first few distinct
/// ones, then how many more there were.
static void reportDwarfWarnings(const Symbolizer &Sym, raw_ostream &Err) {
  ArrayRef<std::string> W = Sym.warnings();
  const size_t Shown = 3;
  for (size_t K = 0; K < W.size() && K < Shown; ++K)
    Err << "lbr2prof: warning: " << Sym.debugPath() << ": debug info: " << W[K]
        << "\n";
  if (Sym.warningCount() > std::min(W.size(), Shown))
    Err << "lbr2prof: warning: " << Sym.debugPath() << ": "
        << Sym.warningCount() - std::min(W.size(), Shown)
        << " more debug-info warnings\n";
}

static Error readTruth(StringRef Path, LbrAggregator &Agg) {
  auto Buf = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buf)
    return makeError("{0}: cannot open: {1}", Path, Buf.getError().message());
  uint32_t Pid = 0;
  uint64_t LineNo = 0;
  std::vector<std::string> Names; // keep filenames alive for MmapEvents
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
    auto hex = [](StringRef S, uint64_t &V) {
      S.consume_front("0x");
      return !S.getAsInteger(16, V);
    };
    if (F[0] == "process") {
      if (F.size() < 2 || F[1].getAsInteger(10, Pid))
        return bad();
    } else if (F[0] == "mapping") {
      // mapping I start S end E pgoff O bias B buildid ID path P
      if (F.size() < 14)
        return bad();
      MmapEvent E;
      E.IsMmap2 = true;
      E.Pid = E.Tid = Pid;
      uint64_t Start, End, PgOff;
      if (!hex(F[3], Start) || !hex(F[5], End) || !hex(F[7], PgOff))
        return bad();
      E.Addr = Start;
      E.Len = End - Start;
      E.PgOff = PgOff;
      E.Prot = 5;
      size_t PathAt = Line.find(" path ");
      if (PathAt == StringRef::npos)
        return bad();
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

/// Finds the binary at BinPath among the recording's mapped files (the one
/// rule, matchDso) and counts every mapping of it as one DSO, Dso: the
/// busiest match when --binary names it, else the one chosen already.
static Error mergeSameBinary(RawProfile &Raw, int &Dso,
                             const std::vector<DsoInfo> &Dsos,
                             ArrayRef<BuildIdEntry> PerfBuildIds,
                             const BinaryImage &Image, StringRef BinPath,
                             const GenerateOptions &Opts,
                             function_ref<std::string()> listDsos) {
  DenseMap<int, int> Same;
  bool Any = Dso >= 0;
  uint64_t Best = 0;
  auto match = [&](int D) {
    return matchDso(Dsos[D].Path, dsoBuildId(Dsos[D], PerfBuildIds), BinPath,
                    Image.buildId());
  };
  for (int D = 0; D < int(Dsos.size()); ++D) {
    DsoMatch M = match(D);
    if (M == DsoMatch::None)
      continue;
    if (M == DsoMatch::BuildIdDiffers && !Opts.IgnoreBuildId)
      return makeError(
          "{0}: build-id {1} differs from the profiled {2} ({3}); use "
          "--ignore-build-id to use it anyway",
          BinPath, toHex(Image.buildId(), true), Dsos[D].Path,
          toHex(dsoBuildId(Dsos[D], PerfBuildIds), true));
    Any = true;
    uint64_t N = Raw.SamplesPerDso.lookup(D);
    if (Opts.Binary.empty())
      continue; // the file with the most samples was chosen above
    if (Dso < 0 || N > Best)
      Best = N, Dso = D;
  }
  if (!Any)
    return makeError("{0}: no mapping of this binary in the input; samples "
                     "per DSO:{1}",
                     BinPath, listDsos());
  for (int D = 0; D < int(Dsos.size()); ++D) {
    DsoMatch M = match(D);
    if (D != Dso && (M == DsoMatch::Same ||
                     (M == DsoMatch::BuildIdDiffers && Opts.IgnoreBuildId)))
      Same[D] = Dso;
  }
  if (!Same.empty())
    Raw.renameDsos(Same);
  return Error::success();
}


/// --kernel: the recording's kernel text map is vmlinux at BinPath, if
/// their build-ids agree (perf records the kernel's under
/// `[kernel.kallsyms]`); its offsets become vmlinux file offsets.
static Error useKernel(RawProfile &Raw, int Dso, const DsoInfo &Kernel,
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
  return relocateKernel(Raw, Dso, Kernel.Path, Image, BinPath);
}

/// perf script text may map no file at all (llvm-profgen's inputs): the
/// reader is told where the binary would sit, its preferred addresses, and
/// the user that it was assumed.
static Error assumeBinaryMapping(EventSource &Src, StringRef Binary,
                                 const BinaryImage *Known) {
  if (Binary.empty() || !Src.mayLackMappings())
    return Error::success();
  std::unique_ptr<BinaryImage> Own;
  if (!Known) {
    Expected<std::unique_ptr<BinaryImage>> I = BinaryImage::open(Binary);
    if (!I)
      return I.takeError();
    Own = std::move(*I);
    Known = Own.get();
  }
  AssumedMapping M;
  M.Path = Binary.str();
  for (const Segment &G : Known->segments())
    if (G.Exec)
      M.Segments.push_back({G.VAddr, G.MemSize, G.Offset});
  Src.assumeMapping(std::move(M));
  return Error::success();
}

static Error generate(const GenerateOptions &Opts, raw_ostream &Out,
                      raw_ostream &Err, std::vector<std::string> &Warnings);

Error runGenerate(const GenerateOptions &Opts, raw_ostream &Out,
                  raw_ostream &Err) {
  // Faults the reader survived (a damaged header feature, a cut pipe) are
  // told once the run succeeds: a run that fails says one line, its error.
  std::vector<std::string> Warnings;
  if (Error E = generate(Opts, Out, Err, Warnings))
    return E;
  for (const std::string &W : Warnings)
    Err << "lbr2prof: warning: " << W << '\n';
  return Error::success();
}

static Error generate(const GenerateOptions &Opts, raw_ostream &Out,
                      raw_ostream &Err, std::vector<std::string> &Warnings) {
  if (Opts.Inputs.empty() && Opts.FromTruth.empty())
    return makeError("no input: give a perf.data file (or '-' for stdin)");
  // --dump=dsos or --dump=raw without an output reads and attributes the
  // samples, prints them, and stops there (every mapped file, no binary).
  bool DsosOnly =
      (Opts.Dump == "dsos" || Opts.Dump == "raw") && Opts.Output.empty();
  Expected<OutputFormat> Format =
      DsosOnly ? OutputFormat::Fdata : resolveFormat(Opts.Format, Opts.Output);
  if (!Format)
    return Format.takeError();
  bool SampleProfile = *Format == OutputFormat::Text ||
                       *Format == OutputFormat::Binary ||
                       *Format == OutputFormat::ExtBinary;
  // Options that do not apply to the output are errors, not silence.
  if (Opts.NoLbr && !DsosOnly && *Format != OutputFormat::Fdata)
    return makeError("--no-lbr writes IP-sample fdata (-o x.fdata); {0} "
                     "needs branch stacks",
                     SampleProfile ? "a sample profile"
                                   : "pre-aggregated output");
  unsigned Threads = Opts.Threads ? Opts.Threads
                                  : std::max(1u, std::thread::hardware_concurrency());

  AggregateOptions AO;
  AO.WindowWeighting = Opts.WindowWeighting;
  AO.Threads = Threads;
  for (uint32_t P : Opts.Pids)
    AO.Pids.insert(P);
  // Samples that carry call stacks (perf record -b -g) give a
  // context-sensitive profile, as llvm-profgen's hybrid samples do. The
  // unwinding needs the binary's calls and returns while reading, so the
  // binary must be known up front (--binary).
  std::unique_ptr<BinaryImage> OracleImage;
  std::unique_ptr<BinaryTransferOracle> Oracle;
  if (Opts.Kernel && Opts.Binary.empty())
    return makeError("--kernel needs --binary VMLINUX (the kernel's "
                     "unstripped ELF image, with its symbol table)");
  if (SampleProfile && !Opts.IgnoreStackSamples && !Opts.Binary.empty() &&
      !Opts.Kernel) {
    Expected<std::unique_ptr<BinaryImage>> I = BinaryImage::open(Opts.Binary);
    if (!I)
      return I.takeError();
    OracleImage = std::move(*I);
    Oracle = std::make_unique<BinaryTransferOracle>(
        *OracleImage, Opts.IgnoreBuildId, Threads);
    AO.Contexts = Oracle.get();
    AO.MaxContextDepth = Opts.MaxContextDepth;
  }
  LbrAggregator Agg(AO);
  std::vector<BuildIdEntry> PerfBuildIds;
  std::string EventName;
  if (!Opts.FromTruth.empty())
    if (Error E = readTruth(Opts.FromTruth, Agg))
      return E;
  for (const std::string &In : Opts.Inputs) {
    Expected<std::unique_ptr<EventSource>> Src = openEventSource(In);
    if (!Src)
      return Src.takeError();
    // A kernel is found on the kernel's map, never assumed into a process.
    if (Error E = assumeBinaryMapping(**Src, Opts.Kernel ? "" : Opts.Binary,
                                      OracleImage.get()))
      return E;
    Agg.setInputName(In);
    Error RunErr = [&] {
      ProgressHandler PH(Agg, **Src, "reading " + In);
      return (*Src)->run(PH);
    }();
    Warnings.insert(Warnings.end(), (*Src)->warnings().begin(),
                    (*Src)->warnings().end());
    if (RunErr)
      return RunErr;
    const PerfFileInfo &Info = (*Src)->info();
    if (Info.AssumedLoadAddress)
      Err << formatv("note: {0}: no mapping of {1} in the input; assumed it "
                     "loaded at its preferred address {2:x} (as llvm-profgen "
                     "does)\n",
                     In, sys::path::filename(Opts.Binary),
                     *Info.AssumedLoadAddress);
    PerfBuildIds.insert(PerfBuildIds.end(), Info.BuildIds.begin(),
                        Info.BuildIds.end());
    if (EventName.empty() && !Info.Attrs.empty())
      EventName = Info.Attrs[0].Name.empty() ? "cycles" : Info.Attrs[0].Name;
    Agg.startNewInput();
  }
  if (Error E = Agg.finish())
    return E;
  RawProfile &Raw = Agg.profile();
  const std::vector<DsoInfo> &Dsos = Agg.maps().dsos();
  auto listDsos = [&]() {
    std::vector<std::pair<uint64_t, int>> V;
    for (auto &[D, N] : Raw.SamplesPerDso)
      V.push_back({N, D});
    std::sort(V.rbegin(), V.rend());
    // One line: the five busiest, then how many more.
    std::string S;
    for (size_t K = 0; K < V.size() && K < 5; ++K)
      S += formatv("{0} {1} {2}", K ? "," : "", V[K].first,
                   V[K].second < 0 ? "[unknown]" : Dsos[V[K].second].Path);
    if (V.size() > 5)
      S += formatv(", and {0} more", V.size() - 5);
    return S;
  };
  if (Raw.Stats.Samples == 0 && Opts.FromTruth.empty())
    return makeError("{0}: no samples", Opts.Inputs.front());
  if (Opts.Dump == "dsos") {
    Out << "samples per dso:\n";
    printSamplesPerDso(Raw.SamplesPerDso, Agg.maps(), Out);
  }
  if (DsosOnly) {
    if (Opts.Dump == "raw")
      printRawProfile(Raw, Agg.maps(), Out);
    return Error::success();
  }

  // Choose the DSO.
  std::string BinPath = Opts.Binary;
  int Dso = -1;
  if (Opts.Kernel) {
    Expected<int> K = findKernelDso(Dsos, Raw, Opts.Inputs.front());
    if (!K)
      return K.takeError();
    Dso = *K;
  }
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
  // The context unwinder's image is this binary (--binary), its functions
  // decoded already: used again rather than opened and decoded twice.
  std::unique_ptr<BinaryImage> OwnImage;
  if (!OracleImage) {
    Expected<std::unique_ptr<BinaryImage>> Img = BinaryImage::open(BinPath);
    if (!Img) {
      if (!Opts.Binary.empty())
        return Img.takeError();
      // The path the recording names: say where it came from and what to
      // do.
      return makeError("{0} (the busiest file of the recording, by the path "
                       "it was mapped from; give its copy with --binary "
                       "PATH)",
                       toString(Img.takeError()));
    }
    OwnImage = std::move(*Img);
  }
  const BinaryImage &Image = OracleImage ? *OracleImage : *OwnImage;
  if (Opts.Kernel) {
    if (Error E = useKernel(Raw, Dso, Dsos[Dso], PerfBuildIds, Image, BinPath,
                            Opts.IgnoreBuildId))
      return E;
  } else if (Error E = mergeSameBinary(Raw, Dso, Dsos, PerfBuildIds, Image,
                                       BinPath, Opts, listDsos))
    return E;
  if (Raw.SamplesPerDso.lookup(Dso) == 0)
    return makeError("{0}: no samples in this binary; samples per DSO:{1}",
                     BinPath, listDsos());


  BinaryProfileOptions PO;
  PO.Threads = Threads;
  PO.InferFlow = Opts.InferFlow;
  if (SampleProfile) {
    if (Raw.Branches.empty())
      return makeError("{0}: no sample has a branch stack; record with `perf "
                       "record -b` (or -j any,u)",
                       Opts.Inputs.empty() ? Opts.FromTruth : Opts.Inputs.front());
    SampleWriterOptions WO;
    WO.Format = *Format == OutputFormat::Text     ? SampleFormat::Text
                : *Format == OutputFormat::Binary ? SampleFormat::Binary
                                                  : SampleFormat::ExtBinary;
    WO.UseMD5 = Opts.UseMD5;
    // Every kind of sample profile is written here: counts divided first
    // if the largest would overflow clang's 32-bit branch weights.
    auto writeProfile = [&](SampleProfileMap &M) {
      if (uint64_t D = fitBranchWeights(M); D > 1)
        Err << formatv("note: {0}: every count divided by {1}, so that the "
                       "largest fits clang's 32-bit branch weights\n",
                       Opts.Output, D);
      return writeSampleProfile(M, Opts.Output, WO);
    };
    // --stats and the dumps, alike for every kind of sample profile.
    auto show = [&](const BinaryProfile &P, const std::string &Kind,
                    function_ref<void()> KindStats) {
      if (Opts.Stats) {
        printProfileStats(P.Stats, Raw.Stats, Err);
        Err << "sample profile kind: " << Kind << "\n";
        KindStats();
      }
      if (Opts.Dump == "cfg")
        printCfgs(P, Image, Out);
      if (Opts.Dump == "raw")
        printRawProfile(Raw, Agg.maps(), Out);
    };
    // A binary with pseudo probes gets a probe-based profile (as
    // llvm-profgen), unless --use-dwarf-correlation asks for lines.
    PseudoProbes Probes;
    if (!Opts.UseDwarfCorrelation) {
      Expected<PseudoProbes> PR = readPseudoProbes(BinPath, Image.functions());
      if (!PR)
        return PR.takeError();
      Probes = std::move(*PR);
    }
    if (Opts.Dump == "probes")
      Probes.print(Out);
    // Samples with call stacks give a context-sensitive profile (line- or
    // probe-based): built, shown and written alike.
    bool WithContexts = Oracle && !Raw.Contexts.empty();
    auto writeContextProfile = [&](Symbolizer *Sym, const PseudoProbes *PP,
                                   StringRef Kind) {
      ContextProfileOptions CO;
      CO.InferFlow = Opts.InferFlow;
      CO.PreInline = Opts.CSMaxCalleeSize != 0;
      CO.CalleeSizeLimit = Opts.CSMaxCalleeSize;
      CO.Probes = PP;
      ContextProfileResult CP =
          buildContextProfile(Raw, Dso, Image, *Oracle, Sym, CO);
      // Here the whole program's profile only feeds --stats and the CFG
      // dump: built only for them.
      BinaryProfile P;
      if (Opts.Stats || Opts.Dump == "cfg")
        P = buildBinaryProfile(Raw, Dso, Image, PO);
      show(P, Kind.str(), [&] {
        printContextProfileStats(CP.Stats, Raw.Contexts.Stats, Err);
      });
      WO.ProbeBased = PP != nullptr;
      WO.PreInlined = CP.PreInlined;
      return writeProfile(CP.Profiles);
    };
    if (Probes.present()) {
      if (WithContexts)
        return writeContextProfile(
            nullptr, &Probes,
            "context-sensitive probe-based (CSSPGO: call stacks, branch "
            "stacks and pseudo probes; contexts nested at their call sites)");
      BinaryProfile P = buildBinaryProfile(Raw, Dso, Image, PO);
      ProbeProfileResult PP = buildProbeProfile(P, Image, Probes);
      show(P, "probe-based (pseudo probes)",
           [&] { printProbeProfileStats(PP.Stats, Err); });
      WO.ProbeBased = true;
      return writeProfile(PP.Profiles);
    }
    SymbolizerOptions SO;
    SO.DebugFile = Opts.DebugFile;
    SO.DwpFile = Opts.DwpFile;
    Expected<std::unique_ptr<Symbolizer>> Sym =
        Symbolizer::create(BinPath, Image.buildId(), SO);
    if (!Sym)
      return Sym.takeError();
    auto NoDebug = [&] {
      return makeError("{0}: no debug info (DWARF): a sample profile needs "
                       "line numbers; build with -g, or give --debug-file; "
                       "fdata output (-o x.fdata) works without it",
                       (*Sym)->debugPath());
    };
    if (!(*Sym)->hasDebugInfo())
      return NoDebug();
    // DWARF for these addresses (looked up in child processes).
    auto symbolize = [&](ArrayRef<uint64_t> Addrs) -> Error {
      if (Error E = (*Sym)->prefetch(Addrs, Threads))
        return E;
      if (!(*Sym)->hasDebugInfo())
        return NoDebug();
      reportDwarfWarnings(**Sym, Err);
      return Error::success();
    };
    if (WithContexts) {
      if (Error E =
              symbolize(contextProfileAddresses(Raw, Dso, Image, *Oracle)))
        return E;
      return writeContextProfile(
          Sym->get(), nullptr,
          "context-sensitive (call stacks and branch stacks; contexts "
          "nested at their call sites)");
    }
    BinaryProfile P = buildBinaryProfile(Raw, Dso, Image, PO);
    if (Error E = symbolize(sampleProfileAddresses(P, Image)))
      return E;
    SampleProfileResult SP = buildSampleProfile(P, Image, **Sym);
    show(P,
         std::string("line-based (DWARF lines") +
             (Opts.UseDwarfCorrelation ? ", --use-dwarf-correlation" : "") +
             ")",
         [&] { printSampleProfileStats(SP.Stats, Err); });
    // Code ran, but none of it has a line (DWARF without subprograms, as
    // assembler output has, or with lines for other code only): an empty
    // profile would change nothing in clang, so say so instead of writing
    // one. Mostly without lines: a warning, with or without --stats.
    const SampleProfileStats &SS = SP.Stats;
    if (SS.Instructions && SS.InstructionsNoDebug == SS.Instructions)
      return makeError("{0}: none of the {1} executed instructions has line "
                       "information in {2} (no DWARF subprogram or line "
                       "covers them); build with -g; fdata output "
                       "(-o x.fdata) works without it",
                       Opts.Output, SS.Instructions, (*Sym)->debugPath());
    if (!Opts.Stats && SS.InstructionsNoDebug * 2 > SS.Instructions)
      Err << formatv("warning: {0} of {1} executed instructions have no line "
                     "information; their samples are not in the profile\n",
                     SS.InstructionsNoDebug, SS.Instructions);
    return writeProfile(SP.Profiles);
  }

  if (Image.functions().empty() && *Format != OutputFormat::PreAggregated)
    return makeError("{0}: no function symbols (a stripped binary?): fdata "
                     "names functions; give the unstripped binary, or write "
                     "pre-aggregated output (-o x.preagg), which needs none",
                     BinPath);
  Expected<std::unique_ptr<AtomicOutputFile>> OutF =
      AtomicOutputFile::create(Opts.Output);
  if (!OutF)
    return OutF.takeError();
  if (!Opts.NoLbr && Raw.Branches.empty())
    return makeError("{0}: no sample has a branch stack; record with `perf "
                     "record -b` (or -j any,u){1}",
                     Opts.Inputs.front(),
                     *Format == OutputFormat::PreAggregated
                         ? " (llvm-bolt 19 reads only branch and "
                           "fall-through lines from pre-aggregated input)"
                         : ", or use --no-lbr for an IP-sample profile");
  if (Opts.NoLbr) {
    writeNoLbrFdata(Raw, Dso, Image, EventName, (*OutF)->os());
  } else if (*Format == OutputFormat::PreAggregated) {
    writePreAggregated(Raw, Dso, Image, (*OutF)->os());
  } else {
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
