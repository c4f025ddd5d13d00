//===- Dump.h - `lbr2prof dump`: show what an input holds -------*- C++ -*-===//
//
// The dump command prints one line per sample with the tokens of
// `perf script -F pid,ip,brstack` (optionally with the mmap and task
// side-band records), or with --summary a digest of the input: record counts
// by type, samples per process and per DSO, branch-stack depths and the
// file's features, in the spirit of `perf report --header-only --stats`.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_DRIVER_DUMP_H
#define LBR2PROF_DRIVER_DUMP_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace lbr2prof {

struct DumpOptions {
  /// perf.data files, pipe streams ("-") or perf script text files.
  std::vector<std::string> Inputs;
  /// Also print MMAP/MMAP2 records, as perf script --show-mmap-events.
  bool ShowMmapEvents = false;
  /// Also print COMM/FORK/EXIT records, as perf script --show-task-events.
  bool ShowTaskEvents = false;
  /// Print a summary instead of the samples.
  bool Summary = false;
  /// Show progress on a terminal.
  bool Progress = true;
};

/// Runs the dump command, writing to OS.
llvm::Error runDump(const DumpOptions &Opts, llvm::raw_ostream &OS);

} // namespace lbr2prof

#endif
