//===- lbr2prof.cpp - command line of lbr2prof ----------------------------===//
//
// The only place that reads argv and exits: CLI11 fills the options of each
// subcommand, the Driver library does the work, and errors are printed here
// as one line "lbr2prof: error: ..." with exit code 1.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Config.h"
#include "lbr2prof/Driver/Dump.h"
#include "lbr2prof/Driver/Generate.h"
#include "lbr2prof/Driver/Merge.h"
#include "lbr2prof/Driver/ReportCommand.h"
#include "lbr2prof/GitCommit.h"
#include "lbr2prof/Support/Error.h"
#include "lbr2prof/Support/OutputFile.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <CLI/CLI.hpp>

using namespace llvm;
using namespace lbr2prof;

static int reportError(Error E) {
  int Code = 1;
  handleAllErrors(std::move(E), [&](const ErrorInfoBase &EI) {
    WithColor::error(errs(), "lbr2prof") << EI.message() << '\n';
  });
  return Code;
}

/// Every long option of App and its subcommands, for "did you mean".
static void optionNames(const CLI::App &App, std::vector<std::string> &Names) {
  for (const CLI::Option *O : App.get_options())
    for (const std::string &L : O->get_lnames())
      Names.push_back("--" + L);
  for (const CLI::App *Sub : App.get_subcommands({}))
    optionNames(*Sub, Names);
}

/// "unknown option '--bianry'; did you mean '--binary'?" for the first
/// argument that looks like a long option and is none of App's, if any.
static std::optional<std::string>
describeUnknownOption(const CLI::App &App, ArrayRef<const char *> Args) {
  std::vector<std::string> Names;
  optionNames(App, Names);
  for (const char *A : Args.drop_front()) {
    StringRef Arg = StringRef(A).split('=').first;
    if (!Arg.starts_with("--") || is_contained(Names, Arg.str()))
      continue;
    StringRef Best;
    unsigned BestDist = 3; // at most 2 edits away
    for (const std::string &N : Names) {
      unsigned D = Arg.edit_distance(N, true, BestDist);
      if (D < BestDist)
        BestDist = D, Best = N;
    }
    std::string Msg = "unknown option '" + Arg.str() + "'";
    if (!Best.empty())
      Msg += "; did you mean '" + Best.str() + "'?";
    return Msg;
  }
  return std::nullopt;
}

/// CLI11's parse errors as one line, "lbr2prof: error: ...", exit code 1
/// (CLI11 itself prints two lines and exits with 104-114); an unknown
/// option gets the closest known one, as LLVM's tools suggest.
static int reportParseError(const CLI::App &App, const CLI::ParseError &E,
                            ArrayRef<const char *> Args) {
  std::string Msg = E.what();
  // CLI11's wordings made to say what was expected.
  StringRef M(Msg);
  if (M.consume_front("Could not convert: ")) {
    auto [Opt, Val] = M.split(" = ");
    Msg = (Opt + " " + Val + ": expected a number").str();
  } else if (size_t At = M.find(": At Most 1 required but received ");
             At != StringRef::npos) {
    Msg = (M.take_front(At) + ": given " +
           M.drop_front(At + strlen(": At Most 1 required but received ")) +
           " times; give it once")
              .str();
  }
  // Only when CLI11 met arguments it did not expect (an option's value may
  // start with "--" too).
  if (dynamic_cast<const CLI::ExtrasError *>(&E))
    if (std::optional<std::string> U = describeUnknownOption(App, Args))
      Msg = *U;
  WithColor::error(errs(), "lbr2prof") << Msg << '\n';
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  CLI::App App{"lbr2prof: turn branch-stack samples (perf record -b) into "
               "compiler profiles",
               "lbr2prof"};
  App.footer(R"(Examples:
  lbr2prof perf.data --binary app -o app.prof     sample profile: clang -O2 -fprofile-sample-use=app.prof
  lbr2prof perf.data --binary app -o app.txt      the same as text (--format=text|binary|extbinary)
  lbr2prof perf.data --binary app -o app.afdo     GCC AutoFDO profile: gcc -O2 -fauto-profile=app.afdo
  lbr2prof perf.data --binary app -o app.fdata    BOLT profile (link app with -Wl,--emit-relocs):
      llvm-bolt app -o app.bolt -data=app.fdata -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold
  lbr2prof a.data b.data --binary app -o app.fdata --stats
  lbr2prof perf.data --binary app -o app.yaml     BOLT YAML profile, with hashes for a rebuilt app:
      llvm-bolt newapp -o newapp.bolt -data=app.yaml -infer-stale-profile ...
  lbr2prof perf.data --binary app -o app.preagg   BOLT pre-aggregated text (llvm-bolt --pa -data=...)
  lbr2prof perf.data --binary app --no-lbr -o app.fdata   IP samples only (no_lbr fdata)
  lbr2prof perf.data --all-binaries -o profiles/  one profile per mapped file (perf record -a)
  lbr2prof dump perf.data                  one line per sample, as perf script -F pid,ip,brstack
  lbr2prof dump --show-mmap-events perf.data
  lbr2prof dump --summary perf.data        record counts, samples per pid and DSO, features
  perf record -o - -b ./app | lbr2prof dump --summary -
  lbr2prof dump script.txt                 perf script text works as input too
  lbr2prof report perf.data --binary app   hot branches, outcomes, latency, paths, calls)");
  App.set_version_flag("--version", "lbr2prof " LBR2PROF_VERSION
                                    " (LLVM " LBR2PROF_LLVM_VERSION
                                    "), commit " LBR2PROF_GIT_COMMIT);
  App.require_subcommand(0, 1);

  GenerateOptions Gen;
  std::string FormatName = "auto";
  App.add_option("inputs", Gen.Inputs,
                 "perf.data files (file or pipe mode, '-' for stdin) or perf "
                 "script text");
  App.add_option("--perfdata,--perfscript", Gen.Inputs,
                 "The same as the inputs (llvm-profgen's spellings)");
  App.add_option("-o,--output", Gen.Output, "Output profile");
  App.add_option("--binary", Gen.Binary,
                 "The profiled binary (default: the mapped file with the most "
                 "samples); matched to the input's mappings by build-id or "
                 "file name");
  App.add_flag("--all-binaries", Gen.AllBinaries,
               "One profile per mapped file with samples, from one read of "
               "the inputs: -o names a directory, the files are named "
               "FILE-BUILDID.EXT, the format is --format's (default "
               "extbinary); profiles have no calling contexts (those need "
               "--binary)");
  App.add_option("--binary-dir", Gen.BinaryDir,
                 "Find copies of the recorded files here (recorded on "
                 "another machine): by build-id (perf's build-id cache "
                 "layout, .build-id/xx/yyyy) or by file name");
  App.add_option("--sysroot", Gen.Sysroot,
                 "Find the recorded files under this root (the recorded "
                 "path appended to it)");
  std::vector<std::string> FormatNames;
  for (StringRef N : outputFormatNames())
    FormatNames.push_back(N.str());
  App.add_option("--format", FormatName,
                 "fdata | preagg | text | binary | extbinary | gcov | "
                 "unsymbolized | raw | bolt-yaml | propeller (default: from "
                 "the output name: .fdata, .preagg/.pa, .txt, "
                 ".prof/.profdata, .afdo, .lbrraw, .yaml/.yml, .propeller; "
                 "unsymbolized is llvm-profgen's --skip-symbolization text, "
                 "raw the counts of every mapped file, to merge)")
      ->check(CLI::IsMember(FormatNames));
  App.add_option("--symbol-order", Gen.SymbolOrder,
                 "Propeller output: write the function order for ld.lld "
                 "--symbol-ordering-file here (default: -o's name with "
                 ".symorder for its extension)");
  App.add_option("--pid", Gen.Pids, "Only samples of these processes");
  App.add_flag("--ignore-build-id", Gen.IgnoreBuildId,
               "Use the binary even if its build-id differs from the "
               "recorded one");
  App.add_flag("--kernel", Gen.Kernel,
               "Profile the kernel: --binary is a vmlinux (text at its link "
               "address, as llvm-profgen --kernel), the samples are the "
               "kernel's, at any load address (KASLR)");
  App.add_flag("--no-lbr", Gen.NoLbr,
               "Use sample IPs only (no branch stacks), as perf2bolt -nl");
  App.add_flag("!--no-window-weighting", Gen.WindowWeighting,
               "Count every branch-stack entry as 1 instead of correcting "
               "the bias of time-based sampling");
  // A flag with an optional =VALUE: a bare --infer-flow is mcf, and the
  // next argument is never taken as its value.
  std::string InferFlowName;
  App.add_flag("--infer-flow{mcf}", InferFlowName,
               "Make block and edge counts consistent on each function's "
               "CFG before writing: =mcf (the default, our minimum-cost "
               "flow) or =profi (LLVM's, as clang and BOLT use)")
      ->check(CLI::IsMember({"mcf", "profi"}).description(""));
  App.add_flag("--stats", Gen.Stats,
               "Print what was used and what was dropped, and why");
  App.add_flag("--with-report", Gen.WithReport,
               "Raw profiles (-o x.lbrraw): also keep what `lbr2prof "
               "report` reads (block cycles, paths of 3 blocks)");
  App.add_flag("--ignore-stack-samples", Gen.IgnoreStackSamples,
               "Sample profiles: ignore call stacks (perf record -b -g) and "
               "write a line-based profile instead of a context-sensitive "
               "one");
  App.add_option("--line-zero", Gen.LineZero,
                 "Line-based sample profiles: code on line 0 (made or merged "
                 "by the compiler) is dropped (=drop, the default) or "
                 "written at offset (0 - its function's line) & 0xffff, "
                 "where clang looks for it (=keep, llvm-profgen's "
                 "convention)")
      ->check(CLI::IsMember({"drop", "keep"}).description(""));
  App.add_option("--max-context-depth", Gen.MaxContextDepth,
                 "Context-sensitive profiles: keep at most this many frames "
                 "of calling context, innermost first (default: all)");
  App.add_option("--cs-max-callee-size", Gen.CSMaxCalleeSize,
                 "Context-sensitive profiles: the pre-inliner's callee size "
                 "scale: a call context stays (marked for clang to inline) "
                 "only if its callee is under this x 100 x the call's "
                 "hotness + 1 bytes (hotness 0 at the profile's cold count, "
                 "1 at its 10% cutoff; default 150); with "
                 "--cs-preinliner=size, the largest callee in bytes for a "
                 "hot call (default 75); 0 keeps every context, unmarked, "
                 "leaving the decisions to clang");
  App.add_option("--cs-preinliner", Gen.CSPreInliner,
                 "Context-sensitive profiles: how the pre-inliner decides "
                 "which contexts to keep: budget (the default: per caller, "
                 "top down, its hottest calls first until the code they add "
                 "reaches --cs-growth-factor x its size, each call above the "
                 "cold count, at least --cs-min-call-share % of its "
                 "caller's entries and into a callee under the size "
                 "scale) or size (hot calls into callees of at most "
                 "--cs-max-callee-size bytes)")
      ->check(CLI::IsMember({"size", "budget"}).description(""));
  App.add_option("--cs-min-call-share", Gen.CSMinCallShare,
                 "Context-sensitive profiles: a call made fewer times than "
                 "this percentage of the calls into the context it is made "
                 "from (a rare path of its caller) keeps no context "
                 "(default 2; not with --cs-preinliner=size)")
      ->check(CLI::NonNegativeNumber.description(""));
  App.add_option("--cs-entry-estimate", Gen.CSEntryEstimate,
                 "Context-sensitive profiles: a context no branch stack saw "
                 "entered is taken as entered as often as its first site "
                 "ran, even if 0 (=first-site, as clang and llvm-profgen "
                 "read probe profiles), or as its first site that ran "
                 "(=first-counted, as llvm-profgen in effect reads lines); "
                 "default first-site for probe-based profiles, "
                 "first-counted for line-based ones (not with "
                 "--cs-preinliner=size)")
      ->check(CLI::IsMember({"first-site", "first-counted"}).description(""));
  App.add_option("--cs-inlined", Gen.CSInlined,
                 "Context-sensitive profiles: code the profiled binary "
                 "inlined stays inlined (=keep, as llvm-profgen's "
                 "--csspgo-replay-preinline), stays unless it is entered "
                 "at most the profile's cold count (=cold), or is decided "
                 "as a call is, each copy sized by its own code (=decide, "
                 "as llvm-profgen's default); a copy that does not stay "
                 "moves to its function's base profile; default cold (not "
                 "with --cs-preinliner=size)")
      ->check(CLI::IsMember({"keep", "cold", "decide"}).description(""));
  App.add_option("--cs-growth-factor", Gen.CSGrowthFactor,
                 "Context-sensitive profiles: the code a caller keeps may "
                 "grow to this many times its own size, within 100 and "
                 "50000 bytes (default 12; not with --cs-preinliner=size)")
      ->check(CLI::PositiveNumber.description(""));
  App.add_option("--dump", Gen.Dump,
                 "Also print a stage to stdout: raw (aggregated addresses), "
                 "cfg (per-function blocks and edges), probes (the "
                 "binary's decoded pseudo probes) or dsos (samples per "
                 "mapped file); raw and dsos need no -o: without one, they "
                 "cover every mapped file and stop there")
      ->check(CLI::IsMember({"raw", "cfg", "probes", "dsos"}));
  App.add_option("--debug-file", Gen.DebugFile,
                 "The binary's debug file (objcopy --only-keep-debug): DWARF "
                 "and, for a stripped binary, its symbols; its build-id must "
                 "be the binary's (default: the binary, then DIR/.build-id/"
                 "xx/yyyy.debug, then .gnu_debuglink beside the binary, in "
                 ".debug/ and in DIR/<binary's directory>, then debuginfod "
                 "when DEBUGINFOD_URLS is set)");
  App.add_option("--debug-file-directory", Gen.DebugFileDirectories,
                 "Search debug files by build-id and .gnu_debuglink under "
                 "DIR instead of /usr/lib/debug (as gdb's "
                 "debug-file-directory; repeat it or join with ':')")
      ->type_name("DIR");
  App.add_option("--dwp", Gen.DwpFile,
                 "Sample profiles: a .dwp package for split DWARF");
  App.add_flag("--use-dwarf-correlation", Gen.UseDwarfCorrelation,
               "Sample profiles: line-based (DWARF) even if the binary has "
               "pseudo probes (-fpseudo-probe-for-profiling)");
  App.add_flag("--use-md5", Gen.UseMD5,
               "Sample profiles: store MD5 hashes instead of names "
               "(extbinary)");
  App.add_option("--from-truth", Gen.FromTruth,
                 "Use the exact counts of an emulated run (utils/lbr-record "
                 "--truth FILE) instead of perf.data samples");
  App.add_option("-j,--threads", Gen.Threads,
                 "Worker threads (default: all cores)");

  DumpOptions Dump;
  CLI::App *DumpCmd = App.add_subcommand(
      "dump", "Print the samples (or a summary) of perf.data or perf script "
              "input, or a GCC AutoFDO profile (.afdo) as a text sample "
              "profile");
  DumpCmd
      ->add_option("inputs", Dump.Inputs,
                   "perf.data files (file or pipe mode, '-' for stdin) or "
                   "perf script text")
      ->required();
  DumpCmd->add_flag("--show-mmap-events", Dump.ShowMmapEvents,
                    "Also print MMAP/MMAP2 records");
  DumpCmd->add_flag("--show-task-events", Dump.ShowTaskEvents,
                    "Also print COMM/FORK/EXIT records");
  DumpCmd->add_flag("--summary", Dump.Summary,
                    "Print record counts, samples per pid and per DSO, and "
                    "the file's features instead of samples");
  DumpCmd->footer(R"(Examples:
  lbr2prof dump perf.data
  lbr2prof dump --show-mmap-events --show-task-events perf.data
  lbr2prof dump --summary perf.data
  lbr2prof dump app.afdo)");

  MergeOptions Merge;
  CLI::App *MergeCmd = App.add_subcommand(
      "merge", "Sum raw profiles (.lbrraw) and recordings into one raw "
               "profile, exactly (any order and grouping gives the same "
               "bytes); or BOLT fdata files into one (-o x.fdata)");
  MergeCmd
      ->add_option("inputs", Merge.Inputs,
                   ".lbrraw files and perf.data files (or fdata files, "
                   "for -o x.fdata)")
      ->required();
  MergeCmd
      ->add_option("-o,--output", Merge.Output,
                   "The merged profile: .lbrraw (raw) or .fdata")
      ->required();
  MergeCmd->add_option("--weight", Merge.Weights,
                       "FILE=W: the input FILE counts W times (e.g. "
                       "yesterday.lbrraw=0.5); repeat per file");
  MergeCmd->add_option("--decay", Merge.Decay,
                       "HALF_LIFE: an input captured one half-life before "
                       "the newest counts half (e.g. 7d; units s m h d w)");
  MergeCmd->add_option("--decay-to", Merge.DecayTo,
                       "TIME: count ages from this time (seconds since 1970 "
                       "or YYYY-MM-DD) instead of the newest input's");
  MergeCmd->add_option("--pid", Merge.Pids,
                       "Only samples of these processes (recordings only)");
  MergeCmd->add_flag("!--no-window-weighting", Merge.WindowWeighting,
                     "Count recordings' entries as 1 each (the peers' units; "
                     "every input must be in the same units)");
  MergeCmd->add_option("-j,--threads", Merge.Threads,
                       "Worker threads (default: all cores)");
  MergeCmd->add_flag("--with-report", Merge.WithReport,
                     "Keep what `lbr2prof report` reads (every raw input "
                     "must have it: written with --with-report)");
  MergeCmd->footer(R"(Examples:
  lbr2prof host1.data -o host1.lbrraw            on each host: no binary needed
  lbr2prof merge host*.lbrraw -o fleet.lbrraw
  lbr2prof fleet.lbrraw --binary app -o app.prof
  lbr2prof merge day*.lbrraw --decay 7d -o recent.lbrraw
  lbr2prof merge a.fdata b.fdata -o all.fdata   as BOLT's merge-fdata)");

  ReportOptions Rep;
  std::string SortName = "count";
  CLI::App *ReportCmd = App.add_subcommand(
      "report", "Show what the branch stacks say about a binary: hot "
                "branches, branch outcomes, mispredictions, block latency, "
                "hot paths, calls");
  ReportCmd
      ->add_option("inputs", Rep.Inputs,
                   "perf.data files (file or pipe mode, '-' for stdin), "
                   "perf script text, or raw profiles written with "
                   "--with-report; several add up")
      ->required();
  ReportCmd->add_option("--binary", Rep.Binary,
                        "The binary to report on (default: the mapped file "
                        "with the most samples)");
  ReportCmd->add_option("--binary-dir", Rep.BinaryDir,
                        "Find copies of the recorded files here: by "
                        "build-id (.build-id/xx/yyyy) or by file name");
  ReportCmd->add_option("--sysroot", Rep.Sysroot,
                        "Find the recorded files under this root");
  ReportCmd->add_option("--pid", Rep.Pids, "Only samples of these processes");
  ReportCmd->add_flag("--ignore-build-id", Rep.IgnoreBuildId,
                      "Use the binary even if its build-id differs from the "
                      "recorded one");
  ReportCmd->add_option("--debug-file", Rep.DebugFile,
                        "The binary's debug file: file:line and, for a "
                        "stripped binary, its symbols (default: searched as "
                        "for profiles)");
  ReportCmd
      ->add_option("--debug-file-directory", Rep.DebugFileDirectories,
                   "Search debug files under DIR instead of /usr/lib/debug")
      ->type_name("DIR");
  ReportCmd->add_option("--top", Rep.Top, "Rows per table (default 20)");
  ReportCmd
      ->add_option("--sort", SortName,
                   "Order of the branch table: count | mispred | misrate | "
                   "cycles (default count)")
      ->check(CLI::IsMember({"count", "mispred", "misrate", "cycles"}));
  ReportCmd->add_option("--html", Rep.HtmlOutput,
                        "Also write a self-contained HTML page with plots");
  ReportCmd->add_option("--json", Rep.JsonOutput,
                        "Also write every view as JSON (schema: "
                        "docs/report-schema.json); '-' writes it to stdout "
                        "instead of the text report");
  ReportCmd->add_option("--flamegraph", Rep.FlameOutput,
                        "Also write the call tree (from -g call stacks, "
                        "else from call/return pairs in the branch stacks) "
                        "as a speedscope file (FILE.speedscope.json)");
  ReportCmd->add_option("--annotate", Rep.Annotate,
                        "Show this function's disassembly with its counts "
                        "(default: the HTML and JSON annotate the 3 "
                        "hottest functions, the text none)");
  std::string DemangleName = "short";
  ReportCmd
      ->add_option("--demangle", DemangleName,
                   "C++ names: short (no template arguments, parameters or "
                   "return type), full, or none (as in the symbol table); "
                   "default short")
      ->check(CLI::IsMember({"short", "full", "none"}));
  ReportCmd->add_option("--mispredict-penalty", Rep.MispredictPenalty,
                        "Cycles charged per mispredicted entry in the "
                        "function table (default 20)");
  ReportCmd->add_option("--block", Rep.Block,
                        "Show the cycles histogram of this block: 0xADDR "
                        "(binary address it starts at, or else contains) or "
                        "FUNCTION:LINE");
  ReportCmd->add_option("--path-length", Rep.PathLength,
                        "Blocks per hot path (1-8, default 3)");
  ReportCmd->footer(R"(Examples:
  lbr2prof report perf.data --binary app
  lbr2prof report perf.data --binary app --sort misrate --top 10
  lbr2prof report perf.data --binary app --block main:42 --html app.html)");

  try {
    App.parse(argc, argv);
  } catch (const CLI::CallForHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForAllHelp &E) {
    return App.exit(E);
  } catch (const CLI::CallForVersion &E) {
    return App.exit(E);
  } catch (const CLI::ParseError &E) {
    return reportParseError(App, E, ArrayRef(argv, argc));
  }
  if (!InferFlowName.empty())
    Gen.InferFlow = InferFlowName == "profi" ? FlowInferenceMethod::Profi
                                             : FlowInferenceMethod::MinCostFlow;

  // A subcommand that prints to stdout: its error, or a failed write (a
  // closed pipe, a full disk), is the exit status.
  auto toStdout = [](function_ref<Error(raw_ostream &)> Run) {
    raw_fd_ostream &OS = outs();
    if (Error E = Run(OS))
      return reportError(std::move(E));
    OS.flush();
    if (OS.has_error()) {
      OS.clear_error();
      return 1;
    }
    return 0;
  };
  if (App.got_subcommand(DumpCmd))
    return toStdout([&](raw_ostream &OS) { return runDump(Dump, OS); });
  if (App.got_subcommand(MergeCmd)) {
    if (Error E = runMerge(Merge, outs(), errs()))
      return reportError(std::move(E));
    return 0;
  }
  if (App.got_subcommand(ReportCmd)) {
    Rep.Sort = SortName == "mispred"   ? ReportSort::Mispred
               : SortName == "misrate" ? ReportSort::MispredRate
               : SortName == "cycles"  ? ReportSort::Cycles
                                       : ReportSort::Count;
    Rep.Demangle = DemangleName == "full"   ? ReportDemangle::Full
                   : DemangleName == "none" ? ReportDemangle::None
                                            : ReportDemangle::Short;
    return toStdout(
        [&](raw_ostream &OS) { return runReport(Rep, OS, errs()); });
  }
  if (Gen.Inputs.empty() && Gen.FromTruth.empty()) {
    errs() << App.help();
    return 1;
  }
  Gen.Format = outputFormatByName(FormatName).value_or(OutputFormat::Auto);
  Gen.DisableFree = true;
  if (Error E = runGenerate(Gen, outs(), errs()))
    return reportError(std::move(E));
  return 0;
}
