//===- Generate.cpp - perf.data + binary -> profile -----------------------===//
//
// The main command: validate the options, read the recording and find the
// binary (Recording.h, shared with report), then one function per output
// kind. Statistics and diagnostics go to Err so that Out can carry a dump.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Driver/Generate.h"
#include "lbr2prof/Aggregate/RawProfileFile.h"
#include "lbr2prof/Binary/BBAddrMap.h"
#include "lbr2prof/Binary/PseudoProbes.h"
#include "lbr2prof/Binary/Symbolizer.h"
#include "lbr2prof/Driver/Recording.h"
#include "lbr2prof/Profile/BinaryProfile.h"
#include "lbr2prof/Profile/BlockLayout.h"
#include "lbr2prof/Profile/ContextProfileBuilder.h"
#include "lbr2prof/Profile/ProbeProfileBuilder.h"
#include "lbr2prof/Profile/SampleProfileBuilder.h"
#include "lbr2prof/Report/Report.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "lbr2prof/Support/Path.h"
#include "lbr2prof/Writers/BoltYaml.h"
#include "lbr2prof/Writers/Fdata.h"
#include "lbr2prof/Writers/GcovAfdo.h"
#include "lbr2prof/Writers/Propeller.h"
#include "lbr2prof/Writers/SampleProf.h"
#include "lbr2prof/Writers/Unsymbolized.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>
#include <thread>

using namespace llvm;

namespace lbr2prof {

namespace {
struct Run;
Error writeFdataOutput(const Run &R);
Error writePreAggregatedOutput(const Run &R);
Error writeSampleProfileOutput(const Run &R);
Error writeUnsymbolizedOutput(const Run &R);
Error writeBoltYamlOutput(const Run &R);
Error writePropellerOutput(const Run &R);

/// The output table: one row per output kind. A new kind is a row and its
/// write function (and, if options apply to it only, a Rule in validate).
struct OutputKind {
  OutputFormat Format;
  /// --format's name.
  StringRef Name;
  /// Output names whose extension selects the kind (blank-separated).
  StringRef Extensions;
  /// --all-binaries' file extension.
  StringRef FileExtension;
  /// How errors name it ("does not apply to this run (...)").
  StringRef Description;
  /// Writes it for one binary (a raw profile is written before a binary is
  /// chosen: none).
  Error (*Write)(const Run &);
};

const OutputKind OutputKinds[] = {
    {OutputFormat::Fdata, "fdata", ".fdata", ".fdata", "fdata",
     writeFdataOutput},
    {OutputFormat::PreAggregated, "preagg", ".preagg .pa", ".preagg",
     "pre-aggregated output", writePreAggregatedOutput},
    {OutputFormat::Text, "text", ".txt", ".txt", "a text sample profile",
     writeSampleProfileOutput},
    {OutputFormat::Binary, "binary", "", ".prof", "a binary sample profile",
     writeSampleProfileOutput},
    {OutputFormat::ExtBinary, "extbinary", ".prof .profdata .extbinary",
     ".prof", "an extbinary sample profile", writeSampleProfileOutput},
    {OutputFormat::Gcov, "gcov", ".afdo", ".afdo", "a GCC AutoFDO profile",
     writeSampleProfileOutput},
    {OutputFormat::Unsymbolized, "unsymbolized", "", ".unsym",
     "an unsymbolized profile", writeUnsymbolizedOutput},
    {OutputFormat::Raw, "raw", ".lbrraw", ".lbrraw", "a raw profile (.lbrraw)",
     nullptr},
    {OutputFormat::BoltYaml, "bolt-yaml", ".yaml .yml", ".yaml",
     "a BOLT YAML profile", writeBoltYamlOutput},
    {OutputFormat::Propeller, "propeller", ".propeller", ".propeller",
     "Propeller output", writePropellerOutput},
};

const OutputKind &outputKind(OutputFormat F) {
  for (const OutputKind &K : OutputKinds)
    if (K.Format == F)
      return K;
  llvm_unreachable("every format has a row");
}
} // namespace

ArrayRef<StringRef> outputFormatNames() {
  static const std::vector<StringRef> Names = [] {
    std::vector<StringRef> N{"auto"};
    for (const OutputKind &K : OutputKinds)
      N.push_back(K.Name);
    return N;
  }();
  return Names;
}

std::optional<OutputFormat> outputFormatByName(StringRef Name) {
  if (Name == "auto")
    return OutputFormat::Auto;
  for (const OutputKind &K : OutputKinds)
    if (K.Name == Name)
      return K.Format;
  return std::nullopt;
}

Expected<OutputFormat> resolveFormat(OutputFormat F, StringRef Output) {
  if (F != OutputFormat::Auto)
    return F;
  StringRef Ext = sys::path::extension(Output);
  std::string Names;
  for (const OutputKind &K : OutputKinds) {
    SmallVector<StringRef, 3> Exts;
    K.Extensions.split(Exts, ' ', -1, false);
    if (!Ext.empty() && is_contained(Exts, Ext))
      return K.Format;
    Names += (Names.empty() ? "" : "|") + K.Name.str();
  }
  return makeError("{0}: cannot tell the output format from the name; use "
                   "--format={1}",
                   Output, Names);
}

static bool isSampleProfile(OutputFormat F) {
  return F == OutputFormat::Text || F == OutputFormat::Binary ||
         F == OutputFormat::ExtBinary || F == OutputFormat::Gcov;
}

static StringRef formatName(OutputFormat F, bool NoLbr) {
  if (F == OutputFormat::Fdata && NoLbr)
    return "IP-sample fdata (--no-lbr)";
  return outputKind(F).Description;
}

namespace {
/// A binary opened on a second thread (BinaryImage::open) while the
/// recording is read; waited for when it is needed. One never taken (the
/// reading failed first) is waited for and its error dropped.
class EarlyImage {
public:
  void start(const std::string &Path, const DebugFileOptions &Debug) {
    F = std::async(std::launch::async,
                   [&Path, &Debug] { return BinaryImage::open(Path, &Debug); });
  }
  bool started() const { return F.valid() || Done; }
  /// The image once it is open, or null if it could not be (thread-safe;
  /// take() then gives the error).
  const BinaryImage *wait() const {
    std::call_once(Once, [this] {
      Expected<std::unique_ptr<BinaryImage>> I = F.get();
      if (I)
        Image = std::move(*I);
      else
        Err = I.takeError();
      Done = true;
    });
    return Image.get();
  }
  /// The image, now the caller's, or the error of its opening (once, after
  /// every wait()).
  Expected<std::unique_ptr<BinaryImage>> take() {
    wait();
    if (Err)
      return std::move(Err);
    return std::move(Image);
  }
  ~EarlyImage() {
    if (F.valid() || Done) {
      wait();
      consumeError(std::move(Err));
    }
  }

private:
  mutable std::future<Expected<std::unique_ptr<BinaryImage>>> F;
  mutable std::once_flag Once;
  mutable std::unique_ptr<BinaryImage> Image;
  mutable Error Err = Error::success();
  mutable bool Done = false;
};

/// The TransferOracle of a binary still being opened (EarlyImage): the
/// first question waits for it. A recording without call stacks asks none,
/// so its reading never waits. If the binary cannot be opened, nothing is
/// the binary (the driver reports the error after the reading).
class DeferredTransferOracle : public TransferOracle {
public:
  DeferredTransferOracle(const EarlyImage &Early, bool IgnoreBuildId)
      : Early(Early), IgnoreBuildId(IgnoreBuildId) {}
  bool isBinary(const DsoInfo &D) const override {
    const TransferOracle *O = real();
    return O && O->isBinary(D);
  }
  Kind kindAt(uint64_t Off) const override {
    const TransferOracle *O = real();
    return O ? O->kindAt(Off) : Other;
  }
  uint64_t returnOffsetOf(uint64_t Off) const override {
    const TransferOracle *O = real();
    return O ? O->returnOffsetOf(Off) : ~0ULL;
  }
  bool isReturnSite(uint64_t Off) const override {
    const TransferOracle *O = real();
    return O && O->isReturnSite(Off);
  }

private:
  const TransferOracle *real() const {
    if (!Ready.load(std::memory_order_acquire)) {
      std::call_once(Once, [this] {
        if (const BinaryImage *I = Early.wait())
          Real = std::make_unique<BinaryTransferOracle>(*I, IgnoreBuildId);
        Ready.store(true, std::memory_order_release);
      });
    }
    return Real.get();
  }
  const EarlyImage &Early;
  bool IgnoreBuildId;
  mutable std::once_flag Once;
  mutable std::atomic<bool> Ready{false};
  mutable std::unique_ptr<BinaryTransferOracle> Real;
};
} // namespace

/// --dump=raw or --dump=dsos without -o: read, attribute, print, stop.
static bool dumpOnly(const GenerateOptions &Opts) {
  return (Opts.Dump == "dsos" || Opts.Dump == "raw") && Opts.Output.empty();
}

Expected<OutputFormat> validate(const GenerateOptions &Opts) {
  if (Error E = checkInputs(Opts.Inputs, Opts.FromTruth))
    return std::move(E);
  if (dumpOnly(Opts))
    return OutputFormat::Fdata;
  if (Opts.Output.empty())
    return makeError("no output: give -o FILE (e.g. -o app.fdata)");
  if (Opts.AllBinaries) {
    if (!Opts.Binary.empty())
      return makeError("--all-binaries profiles every mapped file: give "
                       "either it or --binary");
    if (Opts.Kernel)
      return makeError("--all-binaries does not profile the kernel: give "
                       "--kernel --binary VMLINUX in a run of its own");
    if (isStandardOutput(Opts.Output))
      return makeError("{0}: --all-binaries writes one file per binary: -o "
                       "names a directory",
                       Opts.Output);
    if (!Opts.Dump.empty() && Opts.Dump != "dsos")
      return makeError("--dump={0} is for one binary: give --binary instead "
                       "of --all-binaries",
                       Opts.Dump);
    if (!Opts.DebugFile.empty())
      return makeError("--debug-file is for one binary: give --binary "
                       "instead of --all-binaries (which finds each "
                       "binary's debug file by build-id and .gnu_debuglink, "
                       "under --debug-file-directory)");
  }
  // --all-binaries' -o is a directory: the format is --format's, or else
  // the default profile's (-o app.prof).
  Expected<OutputFormat> F =
      Opts.AllBinaries && Opts.Format == OutputFormat::Auto
          ? Expected<OutputFormat>(OutputFormat::ExtBinary)
          : resolveFormat(Opts.Format, Opts.Output);
  if (!F)
    return F.takeError();
  OutputFormat Format = *F;
  if (!Opts.Dump.empty() && isStandardOutput(Opts.Output))
    return makeError("{0}: the profile and --dump={1} would both go to "
                     "standard output; write the profile to a file",
                     Opts.Output, Opts.Dump);
  if (Opts.Kernel && Opts.Binary.empty())
    return makeError("--kernel needs --binary VMLINUX (the kernel's "
                     "unstripped ELF image, with its symbol table)");
  bool Sample = isSampleProfile(Format);
  if (Opts.NoLbr && Format != OutputFormat::Fdata)
    return makeError("--no-lbr writes IP-sample fdata (-o x.fdata); {0} "
                     "needs branch stacks",
                     Sample ? "a sample profile" : formatName(Format, false));
  if (Format == OutputFormat::Propeller && isStandardOutput(Opts.Output) &&
      Opts.SymbolOrder.empty())
    return makeError("{0}: Propeller output is two files, the cluster list "
                     "and the symbol order: give --symbol-order FILE",
                     Opts.Output);
  bool Gcov = Format == OutputFormat::Gcov;
  // gcc's AutoFDO profiles are line-based only: no contexts, no probes.
  bool Raw = Format == OutputFormat::Raw;
  // A raw profile keeps the calling contexts of the binary --binary names
  // (the unwinding needs its calls and returns).
  bool Contexts = (Sample || Raw) && !Gcov && !Opts.Binary.empty() &&
                  !Opts.Kernel && !Opts.IgnoreStackSamples;
  bool Cfg = !Opts.NoLbr && Format != OutputFormat::PreAggregated &&
             Format != OutputFormat::Unsymbolized && !Raw;
  const char *ContextsNeed =
      Gcov ? "context-sensitive LLVM sample profiles (gcc's AutoFDO format "
             "has no contexts)"
           : "context-sensitive profiles, made only with --binary and "
             "without --kernel or --ignore-stack-samples";
  // Each option with the outputs it applies to.
  struct Rule {
    bool Given;
    const char *Name;
    bool Applies;
    const char *AppliesTo;
  };
  const Rule Rules[] = {
      {Opts.Kernel, "--kernel", !Raw,
       "outputs about one binary (a raw profile holds every mapped file)"},
      {Opts.AllBinaries, "--all-binaries", !Raw,
       "outputs about one binary (a raw profile holds every mapped file)"},
      {!Opts.Dump.empty() && Opts.Dump != "raw" && Opts.Dump != "dsos",
       "--dump", !Raw, "outputs about one binary (raw and dsos apply)"},
      {!Opts.DebugFile.empty(), "--debug-file", !Raw,
       "outputs about one binary (a raw profile needs no binary)"},
      {!Opts.DwpFile.empty(), "--dwp", Sample, "sample profiles"},
      {Opts.UseDwarfCorrelation, "--use-dwarf-correlation", Sample,
       "sample profiles"},
      {Opts.IgnoreStackSamples, "--ignore-stack-samples", Sample || Raw,
       "sample profiles and raw profiles"},
      {!Opts.LineZero.empty(), "--line-zero", Sample && !Gcov,
       "line-based LLVM sample profiles"},
      {Opts.UseMD5, "--use-md5", Format == OutputFormat::ExtBinary,
       "extbinary sample profiles"},
      {Opts.MaxContextDepth.has_value(), "--max-context-depth", Contexts,
       ContextsNeed},
      {Opts.CSMaxCalleeSize.has_value(), "--cs-max-callee-size", Contexts,
       ContextsNeed},
      {!Opts.CSPreInliner.empty(), "--cs-preinliner", Contexts, ContextsNeed},
      {Opts.CSMinCallShare.has_value(), "--cs-min-call-share",
       Contexts && Opts.CSPreInliner != "size",
       "context-sensitive profiles, not with --cs-preinliner=size"},
      {!Opts.CSEntryEstimate.empty(), "--cs-entry-estimate",
       Contexts && Opts.CSPreInliner != "size",
       "context-sensitive profiles, not with --cs-preinliner=size"},
      {!Opts.CSInlined.empty(), "--cs-inlined",
       Contexts && Opts.CSPreInliner != "size",
       "context-sensitive profiles, not with --cs-preinliner=size"},
      {Opts.CSGrowthFactor.has_value(), "--cs-growth-factor",
       Contexts && Opts.CSPreInliner != "size",
       "context-sensitive profiles, not with --cs-preinliner=size"},
      {Opts.Dump == "probes", "--dump=probes",
       Sample && !Gcov && !Opts.UseDwarfCorrelation,
       Gcov ? "probe-based LLVM sample profiles (gcc's AutoFDO profiles "
              "are line-based)"
            : "probe-based sample profiles (not with --use-dwarf-correlation)"},
      {Opts.Dump == "cfg", "--dump=cfg", Cfg,
       "outputs built from CFGs (fdata and sample profiles)"},
      {Opts.InferFlow != FlowInferenceMethod::None, "--infer-flow", Cfg,
       "outputs built from CFGs (fdata and sample profiles)"},
      {!Opts.WindowWeighting, "--no-window-weighting", !Opts.NoLbr,
       "branch-stack outputs (not --no-lbr)"},
      {!Opts.SymbolOrder.empty(), "--symbol-order",
       Format == OutputFormat::Propeller && !Opts.AllBinaries,
       "Propeller output of one binary (--all-binaries writes each "
       "symbol order beside its cluster list)"},
      {Opts.WithReport, "--with-report", Raw,
       "raw profiles (-o x.lbrraw), which then keep what `report` reads"},
  };
  for (const Rule &R : Rules)
    if (R.Given && !R.Applies)
      return makeError("{0} does not apply to this run ({1}): it is for {2}",
                       R.Name, formatName(Format, Opts.NoLbr), R.AppliesTo);
  return Format;
}

namespace {

/// What every output function works from: the options, the recording and
/// the binary, and where to say things.
struct Run {
  const GenerateOptions &Opts;
  OutputFormat Format;
  unsigned Threads;
  LbrAggregator &Agg;
  const Recording &Rec;
  const SelectedBinary &Bin;
  /// The call-stack unwinder, when the samples may carry call stacks.
  BinaryTransferOracle *Oracle;
  raw_ostream &Out, &Err;
  Diagnostics &Diags;
  /// This run's output is the last one made from Agg's counts (not so for
  /// --all-binaries, which makes one per binary): they may be freed once
  /// used.
  bool LastOfCounts = false;

  RawProfile &raw() const { return Agg.profile(); }
  const BinaryImage &image() const { return Bin.image(); }
  BinaryProfileOptions profileOptions() const {
    BinaryProfileOptions PO;
    PO.Threads = Threads;
    PO.InferFlow = Opts.InferFlow;
    return PO;
  }
  /// The CFG profile of the binary, with its checks (given whether or not
  /// --stats is) and its --stats and --dump=cfg output. Parts: what the
  /// caller reads; flow inference and --dump=cfg make all of it.
  BinaryProfile binaryProfile(ProfileParts Parts = ProfileParts::All) const;
  void dumpRaw() const {
    if (Opts.Dump == "raw")
      printRawProfile(raw(), Agg.maps(), Out);
  }
  /// Writes -o through a temporary file by Write (nothing is left if it
  /// fails), then --dump=raw's text, then puts the file in place.
  Error writeOutputFile(function_ref<Error(raw_ostream &)> Write) const {
    Expected<std::unique_ptr<AtomicOutputFile>> F =
        AtomicOutputFile::create(Opts.Output);
    if (!F)
      return F.takeError();
    if (Error E = Write((*F)->os()))
      return E;
    dumpRaw();
    return (*F)->commit();
  }
  Error noBranches(StringRef Hint) const {
    return noBranchStackError(Rec.Name, Hint);
  }
  /// Ends V's use: with DisableFree, V's contents are left unfreed (the
  /// process exits next); otherwise they are freed here.
  template <typename T> void done(T &V) const {
    if (Opts.DisableFree)
      BuryPointer(std::make_unique<T>(std::move(V)));
    V = T();
  }
};

BinaryProfile Run::binaryProfile(ProfileParts Parts) const {
  BinaryProfileOptions PO = profileOptions();
  if (PO.InferFlow == FlowInferenceMethod::None && Opts.Dump != "cfg")
    PO.Parts = Parts;
  BinaryProfile P = buildBinaryProfile(raw(), Bin.Dso, image(), PO);
  const ProfileStats &S = P.Stats;
  uint64_t Bad = S.RangeNotBoundary.Count + S.BranchesSourceNotBoundary.Count +
                 S.BranchesTargetNotBoundary.Count +
                 S.BranchesSourceNotBranch.Count + S.BranchesWrongTarget.Count;
  Diags.ratio(Bad, S.RangesTotal.Count + S.BranchesInBinary.Count, 0.1,
              formatv("of the addresses in {0} are not instruction starts: "
                      "it is probably not the binary that was profiled",
                      Bin.Path));
  if (Opts.Dump == "cfg")
    printCfgs(P, image(), Out);
  if (Opts.Stats)
    printProfileStats(P.Stats, raw().Stats, Err);
  return P;
}

/// The DWARF parser's complaints: the first few distinct ones, then how
/// many more there were.
void addDwarfWarnings(const Symbolizer &Sym, Diagnostics &Diags) {
  ArrayRef<std::string> W = Sym.warnings();
  const size_t Shown = 3;
  for (size_t K = 0; K < W.size() && K < Shown; ++K)
    Diags.warning(Sym.debugPath() + ": debug info: " + W[K]);
  if (Sym.warningCount() > std::min(W.size(), Shown))
    Diags.warning(formatv("{0}: {1} more debug-info warnings", Sym.debugPath(),
                          Sym.warningCount() - std::min(W.size(), Shown)));
}

/// Where the binary's debug file is looked for (DebugFile.h).
static DebugFileOptions debugFileOptions(const GenerateOptions &Opts) {
  DebugFileOptions D;
  D.DebugFile = Opts.DebugFile;
  D.Directories = Opts.DebugFileDirectories;
  D.IgnoreBuildId = Opts.IgnoreBuildId;
  return D;
}

Error writeFdataOutput(const Run &R) {
  if (!hasFunctionSymbols(R.image()))
    return noSymbolsError(R.Bin, "fdata names functions",
                          ", or write pre-aggregated output (-o x.preagg), "
                          "which needs none");
  noteDebugFile(R.Bin.Path, R.image().debugFile(), R.Diags);
  if (!R.Opts.NoLbr && R.raw().Branches.empty())
    return R.noBranches(", or use --no-lbr for an IP-sample profile");
  return R.writeOutputFile([&](raw_ostream &OS) {
    if (R.Opts.NoLbr)
      writeNoLbrFdata(R.raw(), R.Bin.Dso, R.image(), R.Rec.EventName, OS);
    else {
      BinaryProfile P = R.binaryProfile(ProfileParts::Edges);
      writeFdata(P, R.image(), OS, R.Threads);
      R.done(P);
    }
    return Error::success();
  });
}

/// BOLT's YAML profile, with the hashes -infer-stale-profile matches.
Error writeBoltYamlOutput(const Run &R) {
  if (!hasFunctionSymbols(R.image()))
    return noSymbolsError(R.Bin, "a BOLT YAML profile names functions", "");
  if (R.image().arch() != "x86_64")
    return makeError("{0}: BOLT YAML profiles are written for x86-64 "
                     "binaries only (BOLT's block hashes are "
                     "target-specific); write fdata (-o x.fdata)",
                     R.Bin.Path);
  noteDebugFile(R.Bin.Path, R.image().debugFile(), R.Diags);
  if (R.raw().Branches.empty())
    return R.noBranches("");
  BoltYamlHeader H;
  H.BinaryName = sys::path::filename(R.Bin.Path).str();
  H.BuildId = toHex(R.image().buildId(), /*LowerCase=*/true);
  H.Events = R.Rec.EventName;
  return R.writeOutputFile([&](raw_ostream &OS) -> Error {
    if (!writeBoltYaml(R.binaryProfile(), R.image(), H, OS))
      return makeError("{0}: no function of {1} has a counted branch or "
                       "call: an empty profile would change nothing",
                       R.Opts.Output, R.Bin.Path);
    return Error::success();
  });
}

/// Where the symbol order goes: --symbol-order, or beside -o.
std::string symbolOrderPath(const GenerateOptions &Opts) {
  if (!Opts.SymbolOrder.empty())
    return Opts.SymbolOrder;
  SmallString<256> P(Opts.Output);
  sys::path::replace_extension(P, ".symorder");
  return std::string(P);
}

/// Propeller: the cluster list for clang (-o) and the function order for
/// lld (symbolOrderPath), from the binary's .llvm_bb_addr_map.
Error writePropellerOutput(const Run &R) {
  if (!hasFunctionSymbols(R.image()))
    return noSymbolsError(R.Bin, "Propeller output names functions", "");
  Expected<std::vector<MachineFunctionBlocks>> Blocks =
      readMachineBlocks(R.Bin.Path);
  if (!Blocks)
    return Blocks.takeError();
  noteDebugFile(R.Bin.Path, R.image().debugFile(), R.Diags);
  if (R.raw().Branches.empty())
    return R.noBranches("");
  std::string OrderPath = symbolOrderPath(R.Opts);
  if (OrderPath == R.Opts.Output)
    return makeError("{0}: the symbol order would overwrite the cluster "
                     "list: give --symbol-order FILE",
                     R.Opts.Output);
  PropellerLayout L =
      computePropellerLayout(R.binaryProfile(), R.image(), *Blocks);
  if (R.Opts.Stats)
    printLayoutStats(L, R.Err);
  if (L.Stats.Counted && L.Stats.NoBlockMap == L.Stats.Counted)
    return makeError("{0}: none of the {1} functions with counts is in its "
                     ".llvm_bb_addr_map (only code clang compiled with "
                     "-fbasic-block-address-map is)",
                     R.Bin.Path, L.Stats.Counted);
  if (L.Functions.empty())
    return makeError("{0}: no function of {1} has a counted block: an "
                     "empty layout would change nothing",
                     R.Opts.Output, R.Bin.Path);
  Expected<std::unique_ptr<AtomicOutputFile>> Order =
      AtomicOutputFile::create(OrderPath);
  if (!Order)
    return Order.takeError();
  size_t Skipped = 0;
  if (Error E = R.writeOutputFile([&](raw_ostream &OS) {
        writePropellerClusters(L, R.image(), OS, Skipped);
        writeSymbolOrder(L, R.image(), (*Order)->os());
        return Error::success();
      }))
    return E;
  if (Skipped)
    R.Diags.warning(formatv("{0}: {1} hot local functions left out: their "
                            "name is shared and no source file tells them "
                            "apart",
                            R.Opts.Output, Skipped));
  return (*Order)->commit();
}

/// llvm-profgen's unsymbolized profile: raw counts, for
/// `llvm-profgen --unsymbolized-profile`.
Error writeUnsymbolizedOutput(const Run &R) {
  if (R.raw().Branches.empty())
    return R.noBranches("");
  return R.writeOutputFile([&](raw_ostream &OS) {
    writeUnsymbolized(R.raw(), R.Bin.Dso, R.image(), OS);
    return Error::success();
  });
}

Error writePreAggregatedOutput(const Run &R) {
  if (R.raw().Branches.empty())
    return R.noBranches(" (llvm-bolt 19 reads only branch and fall-through "
                        "lines from pre-aggregated input)");
  return R.writeOutputFile([&](raw_ostream &OS) {
    writePreAggregated(R.raw(), R.Bin.Dso, R.image(), OS);
    return Error::success();
  });
}

/// A line-based profile in GCC's AutoFDO format (gcc -fauto-profile=):
/// GCC keeps 64-bit counts, so they are written as they are.
Error writeGcovAfdoOutput(const Run &R, const SampleProfileMap &M) {
  Expected<GcovAfdoStats> S = writeGcovAfdo(M, R.Opts.Output);
  if (!S)
    return S.takeError();
  if (S->Merged)
    R.Diags.note(formatv("{0}: {1} profiles merged into others of the same "
                         "name once cut at the first '.' (gcc reads "
                         "foo.part.0 and foo.cold as foo)",
                         R.Opts.Output, S->Merged));
  if (S->WideDiscriminators)
    R.Diags.warning(formatv("{0}: {1} locations dropped: their "
                            "discriminators do not fit gcc's 16 bits",
                            R.Opts.Output, S->WideDiscriminators));
  if (R.Opts.Stats)
    R.Err << "gcc AutoFDO functions: " << S->Functions
          << "; locations with count 0 left out: " << S->ZeroLocations
          << "; head counts raised from 0 to 1: " << S->RaisedHeads << "\n";
  return Error::success();
}

/// The common end of every sample profile: --stats' kind line, the raw
/// dump, counts fitted to clang's 32-bit weights, the file.
Error finishSampleProfile(const Run &R, SampleProfileMap &M, StringRef Kind,
                          bool ProbeBased, bool PreInlined,
                          function_ref<void()> KindStats) {
  if (R.Opts.Stats) {
    R.Err << "sample profile kind: " << Kind << "\n";
    KindStats();
  }
  R.dumpRaw();
  if (R.Format == OutputFormat::Gcov)
    return writeGcovAfdoOutput(R, M);
  SampleWriterOptions WO;
  WO.Format = R.Format == OutputFormat::Text     ? SampleFormat::Text
              : R.Format == OutputFormat::Binary ? SampleFormat::Binary
                                                 : SampleFormat::ExtBinary;
  WO.UseMD5 = R.Opts.UseMD5;
  WO.ProbeBased = ProbeBased;
  WO.PreInlined = PreInlined;
  WO.Threads = R.Threads;
  if (uint64_t D = fitBranchWeights(M, R.Threads); D > 1)
    R.Diags.note(formatv("{0}: every count divided by {1}, so that the "
                         "largest fits clang's 32-bit branch weights",
                         R.Opts.Output, D));
  return writeSampleProfile(M, R.Opts.Output, WO);
}

/// Samples with call stacks: a context-sensitive profile, line-based (Sym)
/// or probe-based (Probes).
Error writeContextProfile(const Run &R, Symbolizer *Sym,
                          const PseudoProbes *Probes, StringRef Kind) {
  ContextProfileOptions CO;
  CO.InferFlow = R.Opts.InferFlow;
  CO.Threads = R.Threads;
  bool Budget = R.Opts.CSPreInliner != "size";
  CO.PreInliner = Budget ? ContextProfileOptions::PreInlinerKind::Budget
                         : ContextProfileOptions::PreInlinerKind::Size;
  CO.CalleeSizeLimit =
      R.Opts.CSMaxCalleeSize.value_or(Budget ? CO.CalleeSizeLimit : 75);
  CO.MinCallShare = R.Opts.CSMinCallShare.value_or(CO.MinCallShare);
  CO.GrowthFactor = R.Opts.CSGrowthFactor.value_or(CO.GrowthFactor);
  CO.PreInline = CO.CalleeSizeLimit != 0;
  // By default a context's calls are estimated as llvm-profgen 19's
  // pre-inliner reads each kind: from the first probe even if 0 (it writes
  // every probe of a function that ran), from the first counted line (it
  // writes no zero lines). On bench/pgo's tuning half the two readings tie
  // on probe profiles (jq, re2: the same builds; gawk 105 against 103 % of
  // instrumented PGO's gain, three recordings each, within their spread),
  // so llvm-profgen's and clang's reading stays (bench/pgo/README.md,
  // session 14).
  CO.EntryEstimate = Probes ? ContextProfileOptions::EntryKind::FirstSite
                            : ContextProfileOptions::EntryKind::FirstCounted;
  if (!R.Opts.CSEntryEstimate.empty())
    CO.EntryEstimate = R.Opts.CSEntryEstimate == "first-site"
                           ? ContextProfileOptions::EntryKind::FirstSite
                           : ContextProfileOptions::EntryKind::FirstCounted;
  // Code inlined in the profiled binary stays inlined unless the copy ran
  // but is entered at most the cold count (bzip2's mainSort). On bench/
  // pgo's tuning half (three recordings each, share of instrumented PGO's
  // gain, keep / cold) the two are level: CSSPGO jq 118 / 119, re2 94 /
  // 95, gawk 105 / 98 (geometric mean of the speedups 1.0875 / 1.0874);
  // line CS jq 102 / 102, re2 70 / 73, gawk 76 / 75 (1.0693 / 1.0696).
  // Cold is the default because it nests as llvm-profgen 19 does on one
  // more of its own inputs (test/ContextProfile/preinliner-budget.test).
  // llvm-profgen's own way (decide; recording 1 only): jq 103, re2 94,
  // gawk 106 against keep's 121, 94, 108 (bench/pgo/README.md, session 15).
  CO.Inlined = R.Opts.CSInlined == "decide"
                   ? ContextProfileOptions::InlinedCode::Decide
               : R.Opts.CSInlined == "keep"
                   ? ContextProfileOptions::InlinedCode::Keep
                   : ContextProfileOptions::InlinedCode::Cold;
  CO.Probes = Probes;
  // The context counts, once in the flat profiles, are read by nothing
  // else (--stats reads their statistics, kept): freed, sqlite's CSSPGO
  // peaks at 73 MB instead of 81 (bench/pgo).
  if (R.LastOfCounts && R.Opts.Dump != "raw")
    CO.ContextsAdded = [&R] { R.raw().Contexts.releaseCounts(); };
  ContextProfileResult CP =
      buildContextProfile(R.raw(), R.Bin.Dso, R.image(), *R.Oracle, Sym, CO);
  // The whole program's CFG profile only feeds --stats and the CFG dump
  // here: built only for them.
  if (R.Opts.Stats || R.Opts.Dump == "cfg")
    R.binaryProfile(ProfileParts::Counts);
  Error E = finishSampleProfile(
      R, CP.Profiles, Kind, Probes != nullptr, CP.PreInlined, [&] {
        printContextProfileStats(CP.Stats, R.raw().Contexts.Stats, R.Err);
      });
  R.done(CP.Profiles);
  return E;
}

Error writeProbeProfile(const Run &R, const PseudoProbes &Probes) {
  BinaryProfile P = R.binaryProfile(ProfileParts::Counts);
  ProbeProfileResult PP = buildProbeProfile(P, R.image(), Probes);
  R.done(P);
  Error E = finishSampleProfile(
      R, PP.Profiles, "probe-based (pseudo probes)", true, false,
      [&] { printProbeProfileStats(PP.Stats, R.Err); });
  R.done(PP.Profiles);
  return E;
}

/// A line-based profile (DWARF), with or without contexts.
Error writeLineProfile(const Run &R, bool WithContexts) {
  SymbolizerOptions SO;
  SO.Lookup = debugFileOptions(R.Opts);
  if (const DebugFileResult *D = R.image().debugFile())
    SO.Found = *D;
  SO.DwpFile = R.Opts.DwpFile;
  SO.GccDiscriminators = R.Format == OutputFormat::Gcov;
  SO.KeepLineZero = R.Opts.LineZero == "keep";
  Expected<std::unique_ptr<Symbolizer>> Sym =
      Symbolizer::create(R.Bin.Path, R.image().buildId(), SO);
  if (!Sym)
    return Sym.takeError();
  noteDebugFile(R.Bin.Path, &(*Sym)->debugFile(), R.Diags);
  auto noDebug = [&] {
    const DebugFileResult &D = (*Sym)->debugFile();
    std::string Searched;
    if (D.Source == DebugFileSource::None)
      Searched = " (" + D.searchSummary() + ")";
    return makeError("{0}: no debug info (DWARF): a sample profile needs "
                     "line numbers; build with -g, or give --debug-file{1}; "
                     "fdata output (-o x.fdata) works without it",
                     (*Sym)->debugPath(), Searched);
  };
  // DWARF for these addresses (looked up in child processes).
  auto symbolize = [&](ArrayRef<uint64_t> Addrs) -> Error {
    if (!(*Sym)->hasDebugInfo())
      return noDebug();
    if (Error E = (*Sym)->prefetch(Addrs, R.Threads))
      return E;
    if (!(*Sym)->hasDebugInfo())
      return noDebug();
    addDwarfWarnings(**Sym, R.Diags);
    return Error::success();
  };
  if (WithContexts) {
    if (Error E = symbolize(
            contextProfileAddresses(R.raw(), R.Bin.Dso, R.image(), *R.Oracle)))
      return E;
    return writeContextProfile(R, Sym->get(), nullptr,
                               "context-sensitive (call stacks and branch "
                               "stacks; contexts nested at their call sites)");
  }
  // Instruction counts and taken edges are what the line profile reads:
  // without blocks and fall-throughs (and their leaders), bench/scale's
  // 100 MB broad line profile peaks at 804 MB instead of 837.
  BinaryProfile P = R.binaryProfile(ProfileParts::Counts);
  // The counts are in P now.
  if (R.LastOfCounts && R.Opts.Dump != "raw")
    R.raw().releaseCounts();
  if (Error E = symbolize(sampleProfileAddresses(P, R.image())))
    return E;
  SampleProfileResult SP = buildSampleProfile(P, R.image(), **Sym, R.Threads);
  // A walk of every profile that only --stats shows (0.03-0.05 s of
  // bench/scale's 20 MB broad line profile, on one thread).
  if (R.Opts.Stats)
    summarizeSampleProfile(P, R.image(), **Sym, SP);
  // Code ran, but none of it has a line (DWARF without subprograms, as
  // assembler output has, or with lines for other code only): an empty
  // profile would change nothing in clang, so say so instead of writing
  // one.
  const SampleProfileStats &SS = SP.Stats;
  if (SS.Instructions == 0 && !hasFunctionSymbols(R.image()))
    return noSymbolsError(R.Bin, "a sample profile needs them");
  if (SS.Instructions == 0)
    return makeError("{0}: no executed instruction in {1}: the branch stacks "
                     "give no fall-through range in it (each needs two "
                     "entries or more); an empty profile would change "
                     "nothing",
                     R.Opts.Output, R.Bin.Path);
  if (SS.InstructionsNoDebug == SS.Instructions)
    return makeError("{0}: none of the {1} executed instructions has line "
                     "information in {2} (no DWARF subprogram or line "
                     "covers them); build with -g; fdata output "
                     "(-o x.fdata) works without it",
                     R.Opts.Output, SS.Instructions, (*Sym)->debugPath());
  R.Diags.ratio(SS.InstructionsNoDebug, SS.Instructions, 0.5,
                "of the executed instructions have no line information; "
                "their samples are not in the profile");
  std::string Kind =
      std::string("line-based (DWARF lines") +
      (R.Opts.UseDwarfCorrelation ? ", --use-dwarf-correlation" : "") + ")";
  R.done(P);
  // The profile holds the names, not the frames: the writer's buffers
  // (38 MB for bench/scale's 100 MB broad row) take the answers' place.
  (*Sym)->forgetAnswers();
  Error E = finishSampleProfile(R, SP.Profiles, Kind, false, false,
                                [&] { printSampleProfileStats(SS, R.Err); });
  R.done(SP.Profiles);
  return E;
}

/// Sample profiles: probe-based when the binary has pseudo probes (as
/// llvm-profgen, unless --use-dwarf-correlation), context-sensitive when
/// samples carry call stacks.
Error writeSampleProfileOutput(const Run &R) {
  if (R.raw().Branches.empty())
    return R.noBranches("");
  noteDebugFile(R.Bin.Path, R.image().debugFile(), R.Diags);
  PseudoProbes Probes;
  if (!R.Opts.UseDwarfCorrelation) {
    // The probes of the functions that ran (--dump=probes: all of them),
    // found at the first question: only a binary with probes asks.
    std::optional<std::vector<bool>> Ran;
    function_ref<bool(uint64_t)> Wanted;
    auto ran = [&](uint64_t Addr) {
      if (!Ran)
        Ran = functionsRun(R.raw(), R.Bin.Dso, R.image(), R.Oracle);
      int F = R.image().functionAt(Addr);
      return F >= 0 && (*Ran)[unsigned(F)];
    };
    if (R.Opts.Dump != "probes")
      Wanted = ran;
    Expected<PseudoProbes> PR =
        readPseudoProbes(R.Bin.Path, R.image().functions(), Wanted);
    // strip --strip-all drops the probe sections (not allocated); the
    // debug file keeps them, at the same addresses.
    const DebugFileResult *D = R.image().debugFile();
    if (PR && !PR->present() && D && D->separate())
      PR = readPseudoProbes(D->Path, R.image().functions(), Wanted);
    if (!PR)
      return PR.takeError();
    Probes = std::move(*PR);
  }
  if (R.Opts.Dump == "probes")
    Probes.print(R.Out);
  if (R.Format == OutputFormat::Gcov && Probes.present())
    return makeError("{0}: the binary has pseudo probes (a clang "
                     "-fpseudo-probe-for-profiling build); gcc's AutoFDO "
                     "profiles are line-based: give --use-dwarf-correlation",
                     R.Bin.Path);
  bool WithContexts = R.Oracle && !R.raw().Contexts.empty();
  if (!R.Opts.LineZero.empty() && (WithContexts || Probes.present()))
    return makeError("{0}: --line-zero applies to line-based profiles "
                     "without contexts, and this one would have {1}: give "
                     "--ignore-stack-samples or leave --line-zero out",
                     R.Bin.Path,
                     Probes.present() ? "pseudo probes (line 0 has no "
                                        "meaning for them)"
                                      : "calling contexts (perf record -g)");
  if (!Probes.present())
    return writeLineProfile(R, WithContexts);
  if (WithContexts)
    return writeContextProfile(
        R, nullptr, &Probes,
        "context-sensitive probe-based (CSSPGO: call stacks, branch "
        "stacks and pseudo probes; contexts nested at their call sites)");
  return writeProbeProfile(R, Probes);
}

/// The output of one binary, by its kind.
Error writeOutput(const Run &R) { return outputKind(R.Format).Write(R); }

BinaryOptions binaryOptions(const GenerateOptions &Opts) {
  BinaryOptions BO;
  BO.Binary = Opts.Binary;
  BO.IgnoreBuildId = Opts.IgnoreBuildId;
  BO.Kernel = Opts.Kernel;
  BO.BinaryDir = Opts.BinaryDir;
  BO.Sysroot = Opts.Sysroot;
  BO.Debug = debugFileOptions(Opts);
  return BO;
}

/// --all-binaries' file name for a binary: its recorded file name (a copy
/// found by build-id may be called "elf") and build-id, with the format's
/// extension; "-2", "-3" when two share one.
std::string allBinariesName(StringRef Recorded, const SelectedBinary &B,
                            OutputFormat F, StringSet<> &Taken) {
  std::string Base = recordedFileName(Recorded).str();
  if (!B.image().buildId().empty())
    Base += "-" + toHex(B.image().buildId(), /*LowerCase=*/true);
  StringRef Ext = outputKind(F).FileExtension;
  std::string Name = Base + Ext.str();
  for (unsigned K = 2; !Taken.insert(Name).second; ++K)
    Name = formatv("{0}-{1}{2}", Base, K, Ext);
  return Name;
}

/// --all-binaries: every mapped file with samples, busiest first, into
/// the directory Opts.Output. A file that cannot be profiled (not found,
/// no debug info, ...) is a warning with its share of the samples; the run
/// fails only when no file could be.
Error writeAllBinaries(const GenerateOptions &Opts, OutputFormat Format,
                       unsigned Threads, LbrAggregator &Agg,
                       const Recording &Rec, raw_ostream &Out, raw_ostream &Err,
                       Diagnostics &Diags) {
  if (std::error_code EC = sys::fs::create_directories(Opts.Output))
    return makeError("{0}: cannot make the output directory: {1}", Opts.Output,
                     EC.message());
  if (!sys::fs::is_directory(Opts.Output))
    return makeError("{0}: not a directory (--all-binaries writes one file "
                     "per binary into -o's directory)",
                     Opts.Output);
  RawProfile &Raw = Agg.profile();
  const std::vector<DsoInfo> &Dsos = Agg.maps().dsos();
  std::vector<std::pair<uint64_t, int>> Busiest;
  uint64_t Total = 0;
  for (auto &[D, N] : Raw.SamplesPerDso) {
    Total += N;
    if (D >= 0 && N)
      Busiest.push_back({N, -D});
  }
  std::sort(Busiest.rbegin(), Busiest.rend());
  auto share = [&](uint64_t N) {
    return formatv("{0} of {1} samples ({2:f1}%)", N, Total,
                   Total ? 100.0 * N / Total : 0.0)
        .str();
  };
  std::vector<bool> Done(Dsos.size());
  StringSet<> Taken;
  unsigned Written = 0;
  std::string Failed;
  for (auto [N, MinusD] : Busiest) {
    int D = -MinusD;
    if (Done[D])
      continue;
    const std::string &Path = Dsos[D].Path;
    // The samples of this path's mappings, or of the selected binary's once
    // known.
    uint64_t Samples = 0;
    for (int O = 0; O < int(Dsos.size()); ++O)
      if (!Done[O] && Dsos[O].Path == Path)
        Samples += Raw.SamplesPerDso.lookup(O);
    auto skip = [&](StringRef Why) {
      // Every mapping of this path is set aside with it.
      for (int O = 0; O < int(Dsos.size()); ++O)
        if (Dsos[O].Path == Path)
          Done[O] = true;
      // The reason, without the path it would repeat.
      Why.consume_front(Path + ": ");
      std::string Msg =
          formatv("{0}: not profiled, {1}: {2}", Path, share(Samples), Why);
      if (Failed.empty())
        Failed = Msg;
      Diags.warning(Msg);
    };
    // perf's names for what is no file: the kernel, [vdso], [anon], JIT
    // code in anonymous or memfd memory.
    StringRef P(Path);
    if (P.starts_with("[kernel")) {
      skip("the kernel (give --kernel --binary VMLINUX)");
      continue;
    }
    if (P.starts_with("[") || P.starts_with("//anon") ||
        P.starts_with("/memfd:")) {
      skip("not a file (anonymous memory, JIT code or a kernel-made "
           "mapping)");
      continue;
    }
    GenerateOptions One = Opts;
    One.AllBinaries = false;
    One.Binary = locateBinary(Path, dsoBuildId(Dsos[D], Rec.BuildIds),
                              binaryOptions(Opts));
    if (!sys::fs::exists(One.Binary)) {
      skip("not found (give where copies are with --binary-dir or "
           "--sysroot)");
      continue;
    }
    Expected<SelectedBinary> Bin =
        selectBinary(Rec, Raw, Agg.maps(), binaryOptions(One), nullptr);
    if (!Bin) {
      skip(toString(Bin.takeError()));
      continue;
    }
    for (int M : Bin->Mappings)
      Done[M] = true;
    // The file found is another build than this mapping's (raw profiles
    // of two builds, merged): that build is profiled, this one needs its
    // own copy, found by build-id. Other builds of the path get their own
    // turn.
    if (is_contained(Bin->OtherBuilds, D)) {
      Done[D] = true;
      std::string Msg = formatv(
          "{0} (build-id {1}): not profiled, {2}: the file found is "
          "another build ({3}, build-id {4}); give where copies are with "
          "--binary-dir (by build-id)",
          Path, toHex(dsoBuildId(Dsos[D], Rec.BuildIds), true),
          share(Raw.SamplesPerDso.lookup(D)), Bin->Path,
          toHex(Bin->image().buildId(), true));
      if (Failed.empty())
        Failed = Msg;
      Diags.warning(Msg);
    }
    Samples = sampleShare(Raw, Bin->Mappings).Samples;
    if (Error E = foldMappings(Raw, *Bin, Agg.maps())) {
      skip(toString(std::move(E)));
      continue;
    }
    SmallString<256> OutPath(Opts.Output);
    sys::path::append(OutPath, allBinariesName(Path, *Bin, Format, Taken));
    One.Output = std::string(OutPath);
    if (Opts.Stats)
      Err << "== " << Bin->Path << ": " << One.Output << "\n";
    if (Error E = writeOutput(Run{One, Format, Threads, Agg, Rec, *Bin, nullptr,
                                  Out, Err, Diags})) {
      skip(toString(std::move(E)));
      continue;
    }
    ++Written;
    Diags.note(formatv("{0}: {1}{2}, {3}", One.Output, Path,
                       Bin->Path == Path ? "" : " (found as " + Bin->Path + ")",
                       share(Samples)));
  }
  if (!Written && Failed.empty())
    return makeError("{0}: no samples fall in a mapped file; samples per "
                     "DSO:{1}",
                     Rec.Name, listDsos(Raw, Dsos));
  if (!Written)
    return makeError("{0}: no mapped file could be profiled; the busiest: "
                     "{1}",
                     Rec.Name, Failed);
  return Error::success();
}

/// The run; what it has to tell is left in Diags.
Error generate(const GenerateOptions &Opts, raw_ostream &Out, raw_ostream &Err,
               Diagnostics &Diags) {
  Expected<OutputFormat> Format = validate(Opts);
  if (!Format)
    return Format.takeError();
  unsigned Threads = Opts.Threads
                         ? Opts.Threads
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
  DebugFileOptions Debug = debugFileOptions(Opts);
  std::unique_ptr<BinaryImage> OracleImage;
  std::unique_ptr<BinaryTransferOracle> Oracle;
  bool KeepsContexts =
      (isSampleProfile(*Format) && *Format != OutputFormat::Gcov) ||
      *Format == OutputFormat::Raw;
  bool Unwinds = KeepsContexts && !dumpOnly(Opts) &&
                 !Opts.IgnoreStackSamples && !Opts.Binary.empty() &&
                 !Opts.Kernel;
  // With two threads, a --binary is opened on the second while the
  // recording is read (its symbol table can be most of a run: 480k
  // functions of bench/scale's 300 MB binary were 46% of the CPU of its
  // fixed profile); the unwinding, if the samples have stacks, waits for
  // it. Its error is reported after the reading, where selectBinary would
  // have had it. A raw profile or --all-binaries opens it first, as -j1.
  EarlyImage Early;
  std::unique_ptr<DeferredTransferOracle> Deferred;
  if (Threads > 1 && !Opts.Binary.empty() && !Opts.Kernel &&
      !dumpOnly(Opts) && *Format != OutputFormat::Raw && !Opts.AllBinaries) {
    // A file that is no binary at all fails now, not after the reading.
    if (Error E = BinaryImage::check(Opts.Binary))
      return E;
    Early.start(Opts.Binary, Debug);
    if (Unwinds) {
      Deferred =
          std::make_unique<DeferredTransferOracle>(Early, Opts.IgnoreBuildId);
      AO.Contexts = Deferred.get();
      AO.MaxContextDepth = Opts.MaxContextDepth.value_or(0);
    }
  } else if (Unwinds) {
    Expected<std::unique_ptr<BinaryImage>> I =
        BinaryImage::open(Opts.Binary, &Debug);
    if (!I)
      return I.takeError();
    OracleImage = std::move(*I);
    Oracle = std::make_unique<BinaryTransferOracle>(*OracleImage,
                                                    Opts.IgnoreBuildId);
    AO.Contexts = Oracle.get();
    AO.MaxContextDepth = Opts.MaxContextDepth.value_or(0);
  }
  LbrAggregator Agg(AO);
  InputOptions IO;
  IO.Inputs = Opts.Inputs;
  IO.FromTruth = Opts.FromTruth;
  // A kernel is found on the kernel's map, never assumed into a process.
  if (!Opts.Kernel)
    IO.AssumeBinary = Opts.Binary;
  // The binary opened first, or being opened on the second thread (a perf
  // script input that maps no file waits for it rather than open it again).
  IO.AssumeImage = [&]() -> const BinaryImage * {
    if (OracleImage)
      return OracleImage.get();
    return Early.started() ? Early.wait() : nullptr;
  };
  IO.SampleUnits =
      Opts.WindowWeighting ? CountUnits::Estimates : CountUnits::Entries;
  IO.Weights = Opts.Weights;
  IO.DecayHalfLife = Opts.DecayHalfLife;
  IO.DecayTo = Opts.DecayTo;
  // --with-report: the report's own counts beside the aggregator's, from
  // the same samples (and from raw inputs, which must have them).
  std::optional<ReportCollector> Col;
  if (Opts.WithReport) {
    Col.emplace(Agg, AO, DefaultPathLength);
    IO.Report = &Col->Counts;
  }
  PerfEventHandler &Handler = Col ? static_cast<PerfEventHandler &>(*Col) : Agg;
  Expected<Recording> Rec = readRecording(IO, Agg, Handler, Diags);
  if (!Rec)
    return Rec.takeError();
  RawProfile &Raw = Agg.profile();
  if (Opts.Dump == "dsos") {
    Out << "samples per dso:\n";
    printSamplesPerDso(Raw.SamplesPerDso, Agg.maps(), Out);
  }
  if (dumpOnly(Opts)) {
    if (Opts.Dump == "raw")
      printRawProfile(Raw, Agg.maps(), Out);
    return Error::success();
  }
  if (*Format == OutputFormat::Raw) {
    if (Opts.Dump == "raw")
      printRawProfile(Raw, Agg.maps(), Out);
    RawProvenance P = Rec->Provenance;
    P.Event = Rec->EventName;
    return writeRawProfileFile(Raw, Agg.maps().dsos(), Rec->BuildIds,
                               Rec->Units.value_or(CountUnits::Estimates), P,
                               Opts.Output, Col ? &Col->Counts : nullptr);
  }
  if (Opts.AllBinaries)
    return writeAllBinaries(Opts, *Format, Threads, Agg, *Rec, Out, Err, Diags);
  BinaryOptions BO = binaryOptions(Opts);
  if (Early.started()) {
    Expected<std::unique_ptr<BinaryImage>> I = Early.take();
    if (!I)
      return I.takeError();
    OracleImage = std::move(*I);
    if (Deferred)
      Oracle = std::make_unique<BinaryTransferOracle>(*OracleImage,
                                                      Opts.IgnoreBuildId);
  }
  Expected<SelectedBinary> Bin =
      selectBinary(*Rec, Raw, Agg.maps(), BO, OracleImage.get());
  if (!Bin)
    return Bin.takeError();
  if (Opts.Binary.empty())
    Diags.note(describeChoice(*Bin, Raw, Agg.maps()));
  if (std::string Other = describeOtherBuilds(*Bin, Raw, Agg.maps(), *Rec);
      !Other.empty())
    Diags.note(Other);
  if (Error E = foldMappings(Raw, *Bin, Agg.maps()))
    return E;
  return writeOutput(Run{Opts, *Format, Threads, Agg, *Rec, *Bin, Oracle.get(),
                         Out, Err, Diags, /*LastOfCounts=*/true});
}

} // namespace

Error runGenerate(const GenerateOptions &Opts, raw_ostream &Out,
                  raw_ostream &Err) {
  // What the run has to tell is told once it succeeds: a run that fails
  // says one line, its error.
  Diagnostics Diags;
  if (Error E = generate(Opts, Out, Err, Diags))
    return E;
  Diags.print(Err);
  return Error::success();
}

} // namespace lbr2prof
