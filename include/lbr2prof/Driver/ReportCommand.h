//===- ReportCommand.h - `lbr2prof report` ----------------------*- C++ -*-===//
//
// The report command: the shared front half (Recording.h: read the inputs
// through the report's collector, find the binary by the one rule), then
// the Report library's tables, printed as text (and an HTML page).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_DRIVER_REPORTCOMMAND_H
#define LBR2PROF_DRIVER_REPORTCOMMAND_H

#include "lbr2prof/Report/Report.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace lbr2prof {

/// Runs the whole report: read, analyze, print text to Out (and write the
/// HTML page if asked); warnings and notes go to Err when it succeeds.
llvm::Error runReport(const ReportOptions &Opts, llvm::raw_ostream &Out,
                      llvm::raw_ostream &Err);

} // namespace lbr2prof

#endif
