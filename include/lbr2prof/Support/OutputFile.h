//===- OutputFile.h - outputs that appear whole or not at all -*- C++ -*-===//
//
// An AtomicOutputFile writes to a temporary file beside the destination and
// renames it over the destination only on commit(), so a failed or
// interrupted run never leaves a half-written profile and an existing output
// survives an error. "-" means standard output (written directly).
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_SUPPORT_OUTPUTFILE_H
#define LBR2PROF_SUPPORT_OUTPUTFILE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>

namespace lbr2prof {

class AtomicOutputFile {
public:
  /// Opens a temporary file next to Path (or stdout for "-").
  static llvm::Expected<std::unique_ptr<AtomicOutputFile>>
  create(llvm::StringRef Path);
  ~AtomicOutputFile();

  /// The stream to write to.
  /// (A file stream: LLVM writers that seek back, pwrite, can use it.)
  llvm::raw_fd_ostream &os() { return *OS; }
  /// Flushes, checks for write errors and renames into place.
  llvm::Error commit();

private:
  AtomicOutputFile() = default;
  std::string Path;
  std::string TempPath;
  std::unique_ptr<llvm::raw_fd_ostream> OS;
  bool Committed = false;
};

} // namespace lbr2prof

#endif
