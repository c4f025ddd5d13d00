//===- ReportCommand.cpp - `lbr2prof report` ------------------------------===//
#include "lbr2prof/Driver/ReportCommand.h"
#include "lbr2prof/Binary/Symbolizer.h"
#include "lbr2prof/Driver/Recording.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "lbr2prof/Support/Progress.h"

using namespace llvm;

namespace lbr2prof {

static Error validate(const ReportOptions &Opts) {
  if (Error E = checkInputs(Opts.Inputs))
    return E;
  if (Opts.PathLength < 1 || Opts.PathLength > MaxPathLength)
    return makeError("--path-length {0}: must be 1 to {1}", Opts.PathLength,
                     MaxPathLength);
  if (Opts.Top == 0)
    return makeError("--top 0: give at least 1 row");
  // The text report goes to standard output: the page cannot go there too.
  if (!Opts.HtmlOutput.empty() && isStandardOutput(Opts.HtmlOutput))
    return makeError("{0}: the HTML page and the text report would both go "
                     "to standard output; write the page to a file",
                     Opts.HtmlOutput);
  if (!Opts.HtmlOutput.empty() && Opts.HtmlOutput == Opts.JsonOutput)
    return makeError("{0}: given to both --html and --json; give two files",
                     Opts.HtmlOutput);
  if (!Opts.FlameOutput.empty() && isStandardOutput(Opts.FlameOutput))
    return makeError("{0}: the flame graph and the text report would both "
                     "go to standard output; write it to a file",
                     Opts.FlameOutput);
  if (!Opts.FlameOutput.empty() && (Opts.FlameOutput == Opts.HtmlOutput ||
                                    Opts.FlameOutput == Opts.JsonOutput))
    return makeError("{0}: given to --flamegraph and to --html or --json; "
                     "give each its own file",
                     Opts.FlameOutput);
  if (Opts.MispredictPenalty == 0 || Opts.MispredictPenalty > 1000)
    return makeError("--mispredict-penalty {0}: must be 1 to 1000 cycles",
                     Opts.MispredictPenalty);
  return Error::success();
}

/// Writes one rendering of D to Path through a temporary file.
static Error writeFile(StringRef Path, const ReportData &D,
                       void (*Write)(const ReportData &, raw_ostream &)) {
  Expected<std::unique_ptr<AtomicOutputFile>> F =
      AtomicOutputFile::create(Path);
  if (!F)
    return F.takeError();
  Write(D, (*F)->os());
  return (*F)->commit();
}


static Error report(const ReportOptions &Opts, raw_ostream &Out,
                    Diagnostics &Diags) {
  if (Error E = validate(Opts))
    return E;
  AggregateOptions AO;
  AO.WindowWeighting = false; // the report counts entries, as perf does
  AO.Threads = 1;             // the collector sees samples in order
  for (uint32_t P : Opts.Pids)
    AO.Pids.insert(P);
  LbrAggregator Agg(AO);
  ReportCollector Col(Agg, AO, Opts.PathLength, /*CollectStacks=*/true);
  InputOptions IO;
  IO.Inputs = Opts.Inputs;
  // Raw profiles written with --with-report add their counts.
  IO.Report = &Col.Counts;
  Expected<Recording> Rec = readRecording(IO, Agg, Col, Diags);
  if (!Rec)
    return Rec.takeError();
  RawProfile &Raw = Agg.profile();
  if (Raw.Branches.empty())
    return noBranchStackError(Rec->Name);
  // The steps after reading (reading has its own progress line).
  Progress Steps("report", 0);
  Steps.step("finding the binary and its debug file");
  BinaryOptions BO;
  BO.Binary = Opts.Binary;
  BO.IgnoreBuildId = Opts.IgnoreBuildId;
  BO.BinaryDir = Opts.BinaryDir;
  BO.Sysroot = Opts.Sysroot;
  BO.Debug.DebugFile = Opts.DebugFile;
  BO.Debug.Directories = Opts.DebugFileDirectories;
  BO.Debug.IgnoreBuildId = Opts.IgnoreBuildId;
  Expected<SelectedBinary> Bin =
      selectBinary(*Rec, Raw, Agg.maps(), BO, nullptr);
  if (!Bin)
    return Bin.takeError();
  if (Opts.Binary.empty())
    Diags.note(describeChoice(*Bin, Raw, Agg.maps()));
  if (std::string Other = describeOtherBuilds(*Bin, Raw, Agg.maps(), *Rec);
      !Other.empty())
    Diags.note(Other);
  const BinaryImage &Image = Bin->image();
  if (!hasFunctionSymbols(Image))
    return noSymbolsError(*Bin, "the report needs them to tell branch kinds "
                                "and names");
  // Every mapping of the binary counts: the collector's keys name them all.
  std::vector<bool> InBinary(Agg.maps().dsos().size());
  for (int D : Bin->Mappings)
    InBinary[D] = true;
  std::unique_ptr<Symbolizer> Sym;
  SymbolizerOptions SO;
  SO.Lookup = BO.Debug;
  if (const DebugFileResult *Found = Image.debugFile())
    SO.Found = *Found;
  Expected<std::unique_ptr<Symbolizer>> S =
      Symbolizer::create(Bin->Path, Image.buildId(), SO);
  if (!S)
    return S.takeError();
  noteDebugFile(Bin->Path, &(*S)->debugFile(), Diags);
  if ((*S)->hasDebugInfo())
    Sym = std::move(*S);

  Steps.step("symbolizing, disassembling and building the tables");
  ReportData D;
  D.Inputs = Opts.Inputs;
  D.BinaryPath = Bin->Path;
  if (Error E = analyzeReport(Opts, Raw, Col.Counts, &Col, Agg.maps(), Image,
                              Sym.get(), std::move(InBinary), D))
    return E;
  Steps.step("writing");
  if (!Opts.FlameOutput.empty()) {
    if (D.FlameNodes.empty())
      return makeError("--flamegraph {0}: the inputs hold no call stacks and "
                       "no branch stacks to build it from (raw profiles keep "
                       "neither)",
                       Opts.FlameOutput);
    if (Error E = writeFile(Opts.FlameOutput, D, writeSpeedscope))
      return E;
  }
  if (!Opts.HtmlOutput.empty())
    if (Error E = writeFile(Opts.HtmlOutput, D, writeHtmlReport))
      return E;
  Steps.finish();
  // `--json -`: the JSON takes the text report's place on standard output.
  if (!Opts.JsonOutput.empty() && isStandardOutput(Opts.JsonOutput)) {
    writeJsonReport(D, Out);
    return Error::success();
  }
  if (!Opts.JsonOutput.empty())
    if (Error E = writeFile(Opts.JsonOutput, D, writeJsonReport))
      return E;
  printTextReport(D, Out);
  return Error::success();
}

Error runReport(const ReportOptions &Opts, raw_ostream &Out, raw_ostream &Err) {
  Diagnostics Diags;
  if (Error E = report(Opts, Out, Diags))
    return E;
  Diags.print(Err);
  return Error::success();
}

} // namespace lbr2prof
