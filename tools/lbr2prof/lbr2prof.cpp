//===- lbr2prof.cpp - command line of lbr2prof ----------------------------===//
//
// The only place that reads argv and exits: CLI11 fills the options of each
// subcommand, the Driver library does the work, and errors are printed here
// as one line "lbr2prof: error: ..." with exit code 1.
//
//===----------------------------------------------------------------------===//
#include "lbr2prof/Config.h"
#include "lbr2prof/Driver/Dump.h"
#include "llvm/Support/InitLLVM.h"
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

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  CLI::App App{"lbr2prof: turn branch-stack samples (perf record -b) into "
               "compiler profiles",
               "lbr2prof"};
  App.footer(R"(Examples:
  lbr2prof dump perf.data                  one line per sample, as perf script -F pid,ip,brstack
  lbr2prof dump --show-mmap-events perf.data
  lbr2prof dump --summary perf.data        record counts, samples per pid and DSO, features
  perf record -o - -b ./app | lbr2prof dump --summary -
  lbr2prof dump script.txt                 perf script text works as input too)");
  App.set_version_flag("--version",
                       "lbr2prof " LBR2PROF_VERSION " (LLVM " LBR2PROF_LLVM_VERSION
                       ")");
  App.require_subcommand(1);

  DumpOptions Dump;
  CLI::App *DumpCmd = App.add_subcommand(
      "dump", "Print the samples (or a summary) of perf.data or perf script "
              "input");
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
  lbr2prof dump --summary perf.data)");

  try {
    App.parse(argc, argv);
  } catch (const CLI::ParseError &E) {
    return App.exit(E);
  }

  if (*DumpCmd) {
    raw_fd_ostream &OS = outs();
    if (Error E = runDump(Dump, OS))
      return reportError(std::move(E));
    OS.flush();
    if (OS.has_error()) {
      OS.clear_error();
      return 1;
    }
    return 0;
  }
  return 0;
}
